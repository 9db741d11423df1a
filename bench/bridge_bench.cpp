// Bridge benchmark: MQTT -> RocketMQ throughput against the raw limit, our
// producer alone at the same concurrency, measured on the same broker in the
// same run, for each configuration (sessions x in-flight) asked for.
// Each round measures, per configuration, a pair back to back (which side
// goes first alternates) and prints one JSON line:
//   producer  N envelopes sent by one rocketmq::Producer (max_in_flight F)
//             from S threads at once (KEYS = eventId, sharded by device): msg/s;
//   bridge    N such envelopes queued in the S persistent MQTT sessions of a
//             bridge (mqtt.sessions S, rocketmq.max_in_flight F; mosquitto on
//             loopback) while it is away, then drained by it (validate,
//             dedupe, SEND_OK, PUBACK), timed from the first forwarded
//             message: msg/s and its send latency p50/p99. The bridge is the
//             outpost-bridge binary as deployed (S > 1: one process per
//             session, session_processes.h), timed through its status file
//             (status.interval_ms 100, session reports every 100 ms: both
//             ends of a run see the same lag, so it mostly cancels);
//   ratio     bridge / producer of the pair;
//   speedup   bridge msg/s / the first configuration's bridge msg/s in the
//             same round (list sessions=1 first: that is today's bridge).
// A summary line per configuration gives the medians over rounds (pairing
// cancels most of the load drift of a shared machine).
//
// Batched configurations (--batch=B, 0 for none): the bridge forwards in
// RocketMQ batches (batch.max_messages B, batch.linger_ms --linger-ms, one
// session). Their raw limit is our producer sending batches of B messages of
// one device (Producer::send_batch) from one thread, and each round also
// times RocketMQ's official Java producer (java_producer.h) sending as many
// messages of the envelopes' size in batches of B, one request at a time.
// The last line compares the first batched configuration with the
// single-send ones (JSON, medians of the rounds' ratios):
//   batch_speedup_over_single  batched bridge / one session (sessions=1)
//   batch_speedup_over_eight   batched bridge / eight sessions (sessions=8)
//   batch_ratio_to_java        batched bridge / the Java producer's batches
//   batch_cpu_over_eight       bridge + broker CPU per message, batched /
//                              eight sessions
// (null where the run has no such configuration).
// Then the latency the batched bridge adds at half its measured rate (the
// median of its rounds): a live bridge, the envelopes published at that
// pace for --paced-s seconds, and the bridge's forward latency (arrival
// from MQTT to SEND_OK, linger included: its status forward_latency_ms)
// p50/p99, against linger + 5 ms ("batch_added_p99_ms" in the last line,
// and a "paced_latency" line of its own), beside its parts: the wait from
// arrival to the request's first attempt (wait_latency_ms, the bridge's
// own: "batch_wait_p99_ms") and the send (send_latency_ms, the broker's
// answer to a request). Beside them, in the same line, the raw limit at
// that pace (paced_producer.h): our producer with no MQTT leg, grouping the
// same envelopes per queue with the same linger and batch size, sending one
// request at a time as the bridge does ("raw_one_at_a_time", its forward
// p99 also "raw_paced_p99_ms" in the last line) and each queue's requests
// on their own ("raw_at_once"). --paced-rate=R paces at R msg/s instead, to
// compare bridges at the same load.
//
// CPU figures (process_cpu.h), per pair: `producer_cpu_us_per_msg` and
// `bridge_cpu_us_per_msg` are CPU microseconds per message of each process
// over its side's measured window: on the producer side this bench's own
// process (the producer threads) and the RocketMQ broker JVM; on the bridge
// side (first forwarded message to the last) the outpost-bridge processes
// (supervisor and session processes), mosquitto, the broker JVM and this
// bench (polling the status file, and the delaying relay under --delay-ms).
// `publish_cpu_us_per_msg`: this bench's MQTT publisher and mosquitto while
// the envelopes are queued (before the bridge's window). `*_cores_busy`:
// those processes' CPU seconds / wall seconds (2.0 = both cores of this
// machine), `*_machine_busy`: the whole machine's busy share of all cores
// in the window (other users included). Measured, not subtracted: the
// bridge side's total against the producer side's says what forwarding
// through MQTT costs per message, and the cores figures whether the
// machine, not a wait, bounds the rate.
//
// --delay-ms=D puts D ms on every chunk between the bridge (or the raw
// producer) and the RocketMQ broker, in both directions, through a
// delaying relay in this process (delay_proxy.h): the broker must advertise
// 127.0.0.2 (ROCKETMQ_BROKER_IP, which the RocketMQ started here sets) and
// the relay listens there. The kernel here has no sch_netem, so tc netem in
// a network namespace is not available.
//
// Needs mosquitto (started here) and RocketMQ: the one OUTPOST_ROCKETMQ_ENV
// names, else one started here with scripts/rocketmq.sh (a minute or two)
// with flushDiskType=SYNC_FLUSH. The summary names the broker's flushDiskType
// and brokerRole, read from it (GET_BROKER_CONFIG), and whether its SEND_OK
// is durable ("send_ok").
//
// Usage: bridge_bench [--messages=4000] [--devices=64] [--rounds=3]
//                     [--sessions=1,8] [--in-flight=32] [--delay-ms=0]
//                     [--batch=64] [--linger-ms=5] [--paced-s=10]
//                     [--paced-rate=0]
#include <mqtt/async_client.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bench_mqtt.h"
#include "bench_rocketmq.h"
#include "bench_support.h"
#include "common/uuid.h"
#include "cpu_window.h"
#include "delay_proxy.h"
#include "java_producer.h"
#include "mosquitto_fixture.h"
#include "paced_producer.h"
#include "process_cpu.h"
#include "rocketmq/broker_durability.h"
#include "rocketmq/producer.h"
#include "temp_dir.h"

using namespace outpost;
using Steady = std::chrono::steady_clock;

namespace {

struct Args {
    int messages = 4000;
    int devices = 64;
    int rounds = 3;
    std::vector<int> sessions = {1, 8};
    std::vector<int> in_flight = {32};
    int delay_ms = 0;
    std::vector<int> batches = {64};  // empty: no batched configuration
    int linger_ms = 5;
    int paced_s = 10;  // 0: no paced latency run
    int paced_rate = 0;  // msg/s; 0: half the batched bridge's measured rate
};

// One configuration: S sessions (and S producer threads), F in flight; B > 1:
// the bridge forwards in batches of up to B (and the producer sends them).
struct Setup {
    int sessions;
    int in_flight;
    int batch = 1;
    std::string name() const {
        return "s" + std::to_string(sessions) + "f" + std::to_string(in_flight) +
               (batch > 1 ? "b" + std::to_string(batch) : "");
    }
};

struct Envelope {
    std::string topic;
    std::string device;
    std::string event_id;
    std::string payload;
};

// "1,2,8" -> {1, 2, 8}; false on anything else.
bool parse_list(const std::string& text, std::vector<int>* out, int max = 64) {
    out->clear();
    if (text == "0" && max > 64) return true;  // --batch=0: none
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = text.find(',', start);
        const std::string item = text.substr(start, comma - start);
        const int value = std::atoi(item.c_str());
        if (value < 1 || value > max) return false;
        out->push_back(value);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return !out->empty();
}

bool parse_args(int argc, char** argv, Args* args) {
    std::vector<char*> ints = {argv[0]};
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg.rfind("--sessions=", 0) == 0) {
            if (!parse_list(arg.substr(11), &args->sessions)) return false;
        } else if (arg.rfind("--in-flight=", 0) == 0) {
            if (!parse_list(arg.substr(12), &args->in_flight)) return false;
        } else if (arg.rfind("--batch=", 0) == 0) {
            if (!parse_list(arg.substr(8), &args->batches, 256)) return false;
        } else {
            ints.push_back(argv[i]);
        }
    }
    if (!bench::parse_int_flags(static_cast<int>(ints.size()), ints.data(),
                                {{"--messages", &args->messages},
                                 {"--devices", &args->devices},
                                 {"--rounds", &args->rounds},
                                 {"--delay-ms", &args->delay_ms},
                                 {"--linger-ms", &args->linger_ms},
                                 {"--paced-s", &args->paced_s},
                                 {"--paced-rate", &args->paced_rate}},
                                0)) {
        std::fprintf(stderr,
                     "       [--sessions=1,8] [--in-flight=32] (lists, 1 to 64)\n"
                     "       [--batch=64] (list, 2 to 256; 0: no batched bridge)\n"
                     "       [--paced-s=10] (seconds at half the batched rate; 0: none)\n"
                     "       [--paced-rate=0] (msg/s of that run; 0: half the batched rate)\n");
        return false;
    }
    args->messages = std::max(2, args->messages);
    args->devices = std::max(1, args->devices);
    args->rounds = std::max(1, args->rounds);
    return true;
}

// Envelopes shaped like the gateway's, one gateway, seq per device.
std::vector<Envelope> make_envelopes(const std::string& gateway, int count, int devices) {
    std::vector<Envelope> envelopes;
    std::map<std::string, std::int64_t> seq;
    for (int i = 0; i < count; ++i) {
        const std::string device = "dev-" + std::to_string(i % devices);
        const std::string id = make_uuid_v7(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                std::chrono::system_clock::now().time_since_epoch())
                                                .count());
        const nlohmann::json envelope = {
            {"eventId", id},
            {"eventType", "ALARM_RAISED"},
            {"schemaVersion", 1},
            {"gatewayId", gateway},
            {"deviceId", device},
            {"seq", ++seq[device]},
            {"aggregateType", "alarm"},
            {"aggregateId", device + "/overheat"},
            {"occurredAt", "1970-01-01T00:00:12.345Z"},
            {"bootId", "bench-boot"},
            {"uptimeMs", 12345 + i},
            {"payload", {{"alarmType", "overheat"}, {"severity", "major"}, {"value", 97.5}}}};
        envelopes.push_back(
            {"outpost/" + gateway + "/alarm/" + device, device, id, envelope.dump()});
    }
    return envelopes;
}

nlohmann::json bridge_config(const std::string& mqtt_uri, const std::string& name_servers,
                             const std::string& topic, const Setup& setup,
                             const std::string& status_file, int linger_ms) {
    // Per configuration: its own client ids, group and gateway topics, so the
    // sessions of one configuration never hold another's messages.
    nlohmann::json config = {{"mqtt",
             {{"uri", mqtt_uri},
              {"client_id", "bridge-bench-" + setup.name()},
              {"shared_group", "bench-" + setup.name()},
              {"topic_filters", nlohmann::json::array({"outpost/gw-" + setup.name() + "/alarm/+"})},
              {"sessions", setup.sessions},
              // Measures forwarding, not the start-up drain of retired ids.
              {"retired_sessions", 0}}},
            {"rocketmq",
             {{"name_servers", name_servers},
              {"producer_group", "outpost_bridge_bench"},
              {"max_in_flight", setup.in_flight}}},
            {"mapping", nlohmann::json::array({{{"mqtt_filter", "outpost/+/alarm/+"},
                                                {"rocketmq_topic", topic},
                                                {"tag", "${payload.severity}"}}})},
            {"quarantine_topic", topic + "_quarantine"},
            {"receipts", {{"enabled", false}}},
            // batch 1: one request per message (the paho session).
            {"batch", {{"max_messages", setup.batch}}},
            {"status", {{"file", status_file}, {"interval_ms", 100}, {"log_to_stderr", false}}}};
    if (setup.batch > 1) {
        config["batch"] = {{"max_messages", setup.batch}, {"linger_ms", linger_ms}};
    }
    return config;
}

// The mosquitto this bench started (testing::Mosquitto runs it as a child).
pid_t mosquitto_pid() {
    for (pid_t pid : bench::child_processes(::getpid())) {
        if (bench::process_name(pid) == "mosquitto") return pid;
    }
    return -1;
}

nlohmann::json read_status(const std::string& path) {
    std::ifstream file(path);
    const std::string text((std::istreambuf_iterator<char>(file)),
                           std::istreambuf_iterator<char>());
    nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
    return parsed.is_object() ? parsed : nlohmann::json::object();
}

// Runs outpost-bridge with `config` until `until(status)` holds or `limit`
// passes, then stops it (SIGTERM). Returns the seconds from the first
// forwarded message until `until` held (-1 if it never did): connecting to
// mosquitto and the route lookup at the name server are set-up, which the
// producer scenario pays in its warm-up. `status` gets its last status.
// `at_first(pid)` runs at the first forwarded message (pid: the bridge's),
// `at_done` when `until` held, before the bridge is stopped.
double run_bridge(const testing::TempDir& dir, const nlohmann::json& config,
                  const std::function<bool(const nlohmann::json&)>& until,
                  std::chrono::seconds limit, nlohmann::json* status = nullptr,
                  const std::function<void(pid_t)>& at_first = {},
                  const std::function<void()>& at_done = {}) {
    const std::string config_path = dir.file("bridge.json");
    const std::string status_path = config["status"]["file"].get<std::string>();
    std::remove(status_path.c_str());
    std::ofstream(config_path) << config.dump(2);
    const pid_t pid = testing::spawn_logged({OUTPOST_BRIDGE_BINARY, "--config", config_path},
                                            dir.file("bridge.log"));
    const auto started = Steady::now();
    double seconds = -1;
    std::optional<Steady::time_point> first;
    nlohmann::json now;
    while (Steady::now() - started < limit) {
        now = read_status(status_path);
        if (!first && now.value("forwarded", 0) > 0) {
            first = Steady::now();
            if (at_first) at_first(pid);
        }
        if (until(now)) {
            seconds = first ? std::chrono::duration<double>(Steady::now() - *first).count() : 0;
            if (at_done) at_done();
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    testing::terminate_child(pid, std::chrono::seconds(60));
    if (status != nullptr) *status = now;
    return seconds;
}

// Publishes every envelope at QoS 1 (window 10) and waits for the PUBACKs.
bool publish_all(const std::string& uri, const std::vector<Envelope>& envelopes) {
    try {
        auto publisher = bench::connected_client(uri, "gw-bench");
        mqtt::async_client& client = *publisher;
        for (std::size_t start = 0; start < envelopes.size(); start += 10) {
            std::vector<mqtt::delivery_token_ptr> tokens;
            for (std::size_t i = start; i < std::min(envelopes.size(), start + 10); ++i) {
                tokens.push_back(
                    client.publish(envelopes[i].topic, envelopes[i].payload, 1, false));
            }
            for (auto& token : tokens) token->wait();
        }
        client.disconnect()->wait();
        return true;
    } catch (const mqtt::exception& error) {
        std::fprintf(stderr, "publish: %s\n", error.what());
        return false;
    }
}

// One timed burst of our producer: `send(t, latency)` runs on each of
// `threads` threads at once and returns false on a failed send, after which
// the others stop at their next check of `failed`. Returns msg/s for
// `messages`, negative on a failure; appends the threads' latencies (ms, as
// `send` records them) to `latencies`; `cpu` gets this process's and the
// broker's CPU.
using TimedSend = std::function<bool(int thread, std::vector<double>& latencies,
                                     const std::atomic<bool>& failed)>;
double timed_sends(int threads, std::size_t messages, std::vector<double>& latencies,
                   pid_t broker_pid, nlohmann::json& cpu, const TimedSend& send) {
    std::vector<std::vector<double>> own(threads);
    std::atomic<bool> failed{false};
    bench::CpuWindow window;
    window.begin({{"producer", ::getpid()}, {"rocketmq_broker", broker_pid}});
    const auto start = Steady::now();
    std::vector<std::thread> senders;
    for (int t = 0; t < threads; ++t) {
        senders.emplace_back([&, t] {
            if (!send(t, own[t], failed)) failed = true;
        });
    }
    for (std::thread& sender : senders) sender.join();
    const double seconds = std::chrono::duration<double>(Steady::now() - start).count();
    cpu = window.end(messages);
    if (failed) return -1;
    for (const auto& part : own) latencies.insert(latencies.end(), part.begin(), part.end());
    return messages / seconds;
}

double ms_since(Steady::time_point before) {
    return std::chrono::duration<double, std::milli>(Steady::now() - before).count();
}

// Producer alone: `envelopes` sent by `threads` threads at once (envelope i
// by thread i % threads). As timed_sends, a latency per message.
double measure_producer(rocketmq::Producer& producer, const std::string& topic,
                        const std::vector<Envelope>& envelopes, int threads,
                        std::vector<double>& latencies, pid_t broker_pid, nlohmann::json& cpu) {
    return timed_sends(threads, envelopes.size(), latencies, broker_pid, cpu,
                       [&](int t, std::vector<double>& own, const std::atomic<bool>& failed) {
                           for (std::size_t i = t; i < envelopes.size() && !failed; i += threads) {
                               const Envelope& envelope = envelopes[i];
                               const auto before = Steady::now();
                               const auto sent = producer.send(topic, "major", envelope.event_id,
                                                               envelope.payload, envelope.device);
                               if (!sent.is_ok()) {
                                   std::fprintf(stderr, "producer send failed: %s\n",
                                                sent.status().message().c_str());
                                   return false;
                               }
                               own.push_back(ms_since(before));
                           }
                           return true;
                       });
}

// Producer alone, batched: each device's envelopes in order, in batches of
// up to `batch` (Producer::send_batch, one request each), devices shared out
// over `threads` threads. As timed_sends, a latency per request.
double measure_producer_batched(rocketmq::Producer& producer, const std::string& topic,
                                const std::vector<Envelope>& envelopes, int threads, int batch,
                                std::vector<double>& latencies, pid_t broker_pid,
                                nlohmann::json& cpu) {
    std::map<std::string, std::vector<const Envelope*>> by_device;
    for (const Envelope& envelope : envelopes) by_device[envelope.device].push_back(&envelope);
    std::vector<std::vector<const std::vector<const Envelope*>*>> shares(threads);
    int next = 0;
    for (const auto& [device, list] : by_device) shares[next++ % threads].push_back(&list);
    return timed_sends(
        threads, envelopes.size(), latencies, broker_pid, cpu,
        [&](int t, std::vector<double>& own, const std::atomic<bool>& failed) {
            for (const std::vector<const Envelope*>* list : shares[t]) {
                for (std::size_t first = 0; first < list->size() && !failed; first += batch) {
                    std::vector<rocketmq::BatchMessage> messages;
                    for (std::size_t i = first; i < std::min(list->size(), first + batch); ++i) {
                        messages.push_back({"major", (*list)[i]->event_id, (*list)[i]->payload, {}});
                    }
                    const auto before = Steady::now();
                    const auto sent = producer.send_batch(topic, messages, (*list)[first]->device);
                    if (!sent.is_ok()) {
                        std::fprintf(stderr, "producer batch failed: %s\n",
                                     sent.status().message().c_str());
                        return false;
                    }
                    own.push_back(ms_since(before));
                }
            }
            return true;
        });
}

// RocketMQ's Java producer: as many messages as `envelopes`, of their mean
// size, over as many devices, in batches of `batch`. Returns msg/s,
// negative on failure; `cpu` gets the Java JVM's and the broker's CPU.
double measure_java(bench::JavaProducer& java, const std::string& topic,
                    const std::vector<Envelope>& envelopes, int devices, int batch,
                    const std::string& run, pid_t broker_pid, nlohmann::json& cpu) {
    std::size_t bytes = 0;
    for (const Envelope& envelope : envelopes) bytes += envelope.payload.size();
    const int body = static_cast<int>(bytes / std::max<std::size_t>(1, envelopes.size()));
    bench::CpuWindow window;
    window.begin({{"java_producer", java.pid()}, {"rocketmq_broker", broker_pid}});
    const auto start = Steady::now();
    const std::string failed =
        java.send(topic, static_cast<int>(envelopes.size()), batch, devices, body, run);
    const double seconds = std::chrono::duration<double>(Steady::now() - start).count();
    cpu = window.end(envelopes.size());
    if (!failed.empty()) {
        std::fprintf(stderr, "bridge_bench: %s\n", failed.c_str());
        return -1;
    }
    return envelopes.size() / seconds;
}

// The bridge: `envelopes` queued in its persistent sessions while it is
// away, then drained. Returns msg/s from the first forwarded message to the
// last (n - 1 intervals); negative if it did not drain. `status` gets its
// last status line.
double measure_bridge(const testing::TempDir& dir, const nlohmann::json& config,
                      const std::string& mqtt_uri, const std::vector<Envelope>& envelopes,
                      nlohmann::json& status, pid_t broker_pid, nlohmann::json& publish_cpu,
                      nlohmann::json& bridge_cpu) {
    const pid_t mosquitto = mosquitto_pid();
    bench::CpuWindow window;
    window.begin({{"publisher", ::getpid()}, {"mosquitto", mosquitto}});
    if (!publish_all(mqtt_uri, envelopes)) return -1;
    publish_cpu = window.end(envelopes.size());
    const double seconds = run_bridge(
        dir, config,
        [&](const nlohmann::json& now) { return now.value("forwarded", 0u) >= envelopes.size(); },
        std::chrono::seconds(300), &status,
        [&](pid_t bridge) {
            std::vector<std::pair<std::string, pid_t>> parts = {{"bridge", bridge},
                                                                {"mosquitto", mosquitto},
                                                                {"rocketmq_broker", broker_pid},
                                                                {"bench", ::getpid()}};
            for (pid_t child : bench::child_processes(bridge)) parts.emplace_back("bridge", child);
            window.begin(parts);
        },
        [&] { bridge_cpu = window.end(envelopes.size()); });
    if (seconds <= 0) {
        std::fprintf(stderr, "bridge did not drain: %s\n", status.dump().c_str());
        return -1;
    }
    return static_cast<double>(envelopes.size() - 1) / seconds;
}

// Publishes `envelopes` at `rate` msg/s (QoS 1, at most 16 unacknowledged:
// below mosquitto's default Receive Maximum of 20) once the bridge's status
// file says it is connected. Returns false on a publish error or if the
// bridge never connects.
bool publish_paced(const std::string& uri, const std::string& status_path,
                   const std::vector<Envelope>& envelopes, double rate) {
    const auto connect_deadline = Steady::now() + std::chrono::seconds(60);
    while (!read_status(status_path).value("mqtt_connected", false)) {
        if (Steady::now() > connect_deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    try {
        auto publisher = bench::connected_client(uri, "gw-bench-paced");
        mqtt::async_client& client = *publisher;
        std::deque<mqtt::delivery_token_ptr> unacknowledged;
        const auto start = Steady::now();
        for (std::size_t i = 0; i < envelopes.size(); ++i) {
            std::this_thread::sleep_until(
                start + std::chrono::duration_cast<Steady::duration>(
                            std::chrono::duration<double>(static_cast<double>(i) / rate)));
            while (unacknowledged.size() >= 16) {
                unacknowledged.front()->wait();
                unacknowledged.pop_front();
            }
            unacknowledged.push_back(
                client.publish(envelopes[i].topic, envelopes[i].payload, 1, false));
        }
        for (auto& token : unacknowledged) token->wait();
        client.disconnect()->wait();
        return true;
    } catch (const mqtt::exception& error) {
        std::fprintf(stderr, "paced publish: %s\n", error.what());
        return false;
    }
}

// The batched bridge live while envelopes arrive at `rate`: its status
// once every one was forwarded (null on a failure).
nlohmann::json measure_paced(const testing::TempDir& dir, const nlohmann::json& config,
                             const std::string& mqtt_uri, const std::vector<Envelope>& envelopes,
                             double rate) {
    const std::string status_path = config["status"]["file"].get<std::string>();
    std::remove(status_path.c_str());
    std::atomic<bool> published_ok{false};
    std::thread publisher([&] {
        published_ok = publish_paced(mqtt_uri, status_path, envelopes, rate);
    });
    nlohmann::json status;
    const double seconds = run_bridge(
        dir, config,
        [&](const nlohmann::json& now) { return now.value("forwarded", 0u) >= envelopes.size(); },
        std::chrono::seconds(120) + std::chrono::seconds(static_cast<int>(
                                        static_cast<double>(envelopes.size()) / rate)),
        &status);
    publisher.join();
    if (seconds < 0 || !published_ok) {
        std::fprintf(stderr, "bridge_bench: the paced run did not complete: %s\n",
                     status.dump().c_str());
        return nullptr;
    }
    return status;
}

// Sends once, retrying for up to a minute: a broker that has just started may
// not have registered its topic template with the name server yet.
bool warm_up(rocketmq::Producer& producer, const std::string& topic) {
    const auto deadline = Steady::now() + std::chrono::seconds(60);
    auto warm = producer.send(topic, "warm", "warm", "warm-up", "d");
    while (!warm.is_ok() && Steady::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::seconds(1));
        warm = producer.send(topic, "warm", "warm", "warm-up", "d");
    }
    if (!warm.is_ok()) {
        std::fprintf(stderr, "bridge_bench: warm-up send failed: %s\n",
                     warm.status().message().c_str());
    }
    return warm.is_ok();
}

double round2(double value) {
    return std::round(value * 100) / 100;
}

// The raw limit of the paced run (paced_producer.h): our producer sends
// `count` envelopes of the same shape at `rate`, grouped per queue with the
// bridge's linger and batch size, from `senders` threads (1: one request at
// a time, as the bridge; bench::kThreadPerQueue: each queue's requests on
// their own). Its percentiles are exact, where the bridge's status gives
// bucket bounds (quarter octaves, up to 19 % above). Null on a failed send.
nlohmann::json paced_raw_limit(rocketmq::Producer& producer, const std::string& topic, int count,
                               double rate, const Args& args, int batch, int senders,
                               pid_t broker_pid) {
    std::vector<bench::PacedMessage> messages;
    for (const Envelope& envelope : make_envelopes("gw-paced-raw", count, args.devices)) {
        messages.push_back({envelope.device, envelope.event_id, envelope.payload});
    }
    const bench::PacedFigures figures = bench::run_paced_producer(
        producer, topic, messages, rate, std::chrono::milliseconds(args.linger_ms),
        static_cast<std::size_t>(batch), senders, broker_pid);
    if (!figures.ok) return nullptr;
    const auto ms = [](const std::vector<double>& samples, double fraction) {
        return round2(bench::percentile(samples, fraction));
    };
    return {{"forward_p50_ms", ms(figures.forward_ms, 0.5)},
            {"forward_p99_ms", ms(figures.forward_ms, 0.99)},
            {"wait_p99_ms", ms(figures.wait_ms, 0.99)},
            {"send_p50_ms", ms(figures.send_ms, 0.5)},
            {"send_p99_ms", ms(figures.send_ms, 0.99)},
            {"msgs_per_request", round2(static_cast<double>(figures.forward_ms.size()) /
                                        std::max<std::size_t>(1, figures.send_ms.size()))},
            {"cpu_us_per_msg", figures.cpu["per_msg"]}};
}

struct Results {
    std::vector<double> producer_rates, bridge_rates, ratios, speedups, producer_latencies;
    // CPU µs per message, all processes of the side, and cores busy.
    std::vector<double> producer_cpu_us, bridge_cpu_us, producer_cores, bridge_cores;
    // The bridge's processes and the broker JVM only (what a fleet runs).
    std::vector<double> bridge_and_broker_cpu_us;
    // Batched configurations: the Java producer's batches, and its CPU.
    std::vector<double> java_rates, java_cpu_us;
};

double part(const nlohmann::json& cpu, const char* name) {
    return cpu["per_msg"].value(name, 0.0);
}

// Medians over rounds of a[r] / b[r]; null when either is missing.
nlohmann::json median_ratio(const std::vector<double>* a, const std::vector<double>* b) {
    if (a == nullptr || b == nullptr || a->empty() || a->size() != b->size()) return nullptr;
    std::vector<double> ratios;
    for (std::size_t r = 0; r < a->size(); ++r) {
        if ((*b)[r] > 0) ratios.push_back((*a)[r] / (*b)[r]);
    }
    if (ratios.empty()) return nullptr;
    return round2(bench::median(ratios));
}

}  // namespace

int main(int argc, char** argv) {
    Args args;
    if (!parse_args(argc, argv, &args)) return 2;
    if (!testing::mosquitto_available()) {
        std::fprintf(stderr, "mosquitto is not installed\n");
        return 77;
    }
    bench::BenchRocketMq rocketmq("bridge_bench", args.delay_ms > 0);
    if (rocketmq.name_servers().empty()) {
        std::fprintf(stderr, "bridge_bench: no RocketMQ name server\n");
        return 1;
    }
    std::unique_ptr<bench::DelayProxy> relay;
    if (args.delay_ms > 0) {
        // The broker advertises 127.0.0.2:PORT and listens on 127.0.0.1:PORT;
        // clients reach it only through this relay.
        const std::string broker = rocketmq.broker_address();
        const int port = std::atoi(broker.substr(broker.rfind(':') + 1).c_str());
        if (rocketmq.advertised_ip() != "127.0.0.2") {
            std::fprintf(stderr,
                         "bridge_bench: --delay-ms needs a broker started with "
                         "ROCKETMQ_BROKER_IP=127.0.0.2 (leave OUTPOST_ROCKETMQ_ENV unset)\n");
            return 2;
        }
        relay = std::make_unique<bench::DelayProxy>("127.0.0.2", port, "127.0.0.1", port,
                                                    std::chrono::milliseconds(args.delay_ms));
        if (!relay->ok()) {
            std::fprintf(stderr, "bridge_bench: cannot listen on 127.0.0.2:%d\n", port);
            return 1;
        }
    }
    testing::Mosquitto broker;
    testing::TempDir dir;
    const std::string status_file = dir.file("status.json");
    const std::string topic =
        "bench_bridge_" + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                             std::chrono::system_clock::now().time_since_epoch())
                                             .count());
    std::vector<Setup> setups;
    for (int sessions : args.sessions) {
        for (int in_flight : args.in_flight) setups.push_back({sessions, in_flight});
    }
    for (int batch : args.batches) {
        if (batch > 1) setups.push_back({1, args.in_flight.front(), batch});
    }
    const bool batched = std::any_of(setups.begin(), setups.end(),
                                     [](const Setup& setup) { return setup.batch > 1; });
    std::unique_ptr<bench::JavaProducer> java;
    // One producer per configuration (its max_in_flight); the warm-up creates
    // both topics and the connection, so neither side pays for them below.
    std::vector<std::unique_ptr<rocketmq::Producer>> producers;
    for (const Setup& setup : setups) {
        rocketmq::ProducerOptions options;
        options.name_server_addresses = rocketmq.name_servers();
        options.producer_group = "outpost_bridge_bench";
        options.max_in_flight = setup.in_flight;
        producers.push_back(std::make_unique<rocketmq::Producer>(options));
        if (!warm_up(*producers.back(), topic + "_raw") || !warm_up(*producers.back(), topic)) {
            return 1;
        }
        if (setup.batch > 1 && !java) {
            if (!warm_up(*producers.back(), topic + "_java")) return 1;
            java = std::make_unique<bench::JavaProducer>(OUTPOST_SOURCE_ROOT,
                                                         rocketmq.name_servers(),
                                                         "outpost_bridge_bench_java");
            nlohmann::json ignored;
            if (!java->ready() ||
                measure_java(*java, topic + "_java",
                             make_envelopes("gw-java", args.messages / 4, args.devices),
                             args.devices, setup.batch, "warm", rocketmq.broker_pid(),
                             ignored) <= 0) {
                std::fprintf(stderr, "bridge_bench: the Java producer did not start or send\n");
                return 1;
            }
        }
        // Creates the persistent sessions and their subscriptions, then leaves.
        run_bridge(
            dir,
            bridge_config(broker.uri(), rocketmq.name_servers(), topic, setup, status_file,
                          args.linger_ms),
            [connected = std::optional<Steady::time_point>()](const nlohmann::json& now) mutable {
                // Connected, then a second for the subscriptions to be made.
                if (!connected && now.value("mqtt_connected", false)) connected = Steady::now();
                return connected && Steady::now() - *connected > std::chrono::seconds(1);
            },
            std::chrono::seconds(60));
    }

    // Rounds outermost: every configuration is measured in every round, so a
    // round's speedups compare configurations under nearly the same load.
    std::vector<Results> results(setups.size());
    for (int round = 0; round < args.rounds; ++round) {
        double first_bridge_rate = 0;
        for (std::size_t c = 0; c < setups.size(); ++c) {
            const Setup& setup = setups[c];
            const nlohmann::json config = bridge_config(broker.uri(), rocketmq.name_servers(),
                                                        topic, setup, status_file, args.linger_ms);
            double producer_rate = 0, bridge_rate = 0;
            nlohmann::json status, producer_cpu, publish_cpu, bridge_cpu;
            for (int side = 0; side < 2; ++side) {
                const bool producer_turn = (side == 0) == (round % 2 == 0);
                const std::vector<Envelope> envelopes =
                    make_envelopes("gw-" + setup.name(), args.messages, args.devices);
                if (producer_turn && setup.batch > 1) {
                    producer_rate = measure_producer_batched(
                        *producers[c], topic + "_raw", envelopes, setup.sessions, setup.batch,
                        results[c].producer_latencies, rocketmq.broker_pid(), producer_cpu);
                } else if (producer_turn) {
                    producer_rate = measure_producer(*producers[c], topic + "_raw", envelopes,
                                                     setup.sessions, results[c].producer_latencies,
                                                     rocketmq.broker_pid(), producer_cpu);
                } else {
                    bridge_rate = measure_bridge(dir, config, broker.uri(), envelopes, status,
                                                 rocketmq.broker_pid(), publish_cpu, bridge_cpu);
                }
            }
            if (producer_rate <= 0 || bridge_rate <= 0) return 1;
            if (c == 0) first_bridge_rate = bridge_rate;
            Results& r = results[c];
            nlohmann::json java_cpu;
            if (setup.batch > 1) {
                const double java_rate = measure_java(
                    *java, topic + "_java", make_envelopes("gw-java", args.messages, args.devices),
                    args.devices, setup.batch, "r" + std::to_string(round) + setup.name(),
                    rocketmq.broker_pid(), java_cpu);
                if (java_rate <= 0) return 1;
                r.java_rates.push_back(java_rate);
                r.java_cpu_us.push_back(part(java_cpu, "java_producer"));
            }
            r.bridge_and_broker_cpu_us.push_back(part(bridge_cpu, "bridge") +
                                                 part(bridge_cpu, "rocketmq_broker"));
            r.producer_rates.push_back(producer_rate);
            r.bridge_rates.push_back(bridge_rate);
            r.ratios.push_back(bridge_rate / producer_rate);
            r.speedups.push_back(bridge_rate / first_bridge_rate);
            r.producer_cpu_us.push_back(producer_cpu["per_msg"]["total"].get<double>());
            r.bridge_cpu_us.push_back(bridge_cpu["per_msg"]["total"].get<double>());
            r.producer_cores.push_back(producer_cpu["cores_busy"].get<double>());
            r.bridge_cores.push_back(bridge_cpu["cores_busy"].get<double>());
            std::printf("%s\n",
                        nlohmann::json{{"bench", "bridge"},
                                       {"scenario", "pair"},
                                       {"sessions", setup.sessions},
                                       {"in_flight", setup.in_flight},
                                       {"delay_ms", args.delay_ms},
                                       {"round", round},
                                       {"messages", args.messages},
                                       {"producer_msg_per_s", std::round(producer_rate)},
                                       {"bridge_msg_per_s", std::round(bridge_rate)},
                                       {"ratio", round2(r.ratios.back())},
                                       {"speedup", round2(r.speedups.back())},
                                       {"bridge_send_p50_ms", status["send_latency_ms"]["p50"]},
                                       {"bridge_send_p99_ms", status["send_latency_ms"]["p99"]},
                                       {"producer_cpu_us_per_msg", producer_cpu["per_msg"]},
                                       {"producer_cores_busy", producer_cpu["cores_busy"]},
                                       {"producer_machine_busy", producer_cpu["machine_busy"]},
                                       {"publish_cpu_us_per_msg", publish_cpu["per_msg"]},
                                       {"bridge_cpu_us_per_msg", bridge_cpu["per_msg"]},
                                       {"bridge_cores_busy", bridge_cpu["cores_busy"]},
                                       {"bridge_machine_busy", bridge_cpu["machine_busy"]},
                                       {"batch", setup.batch},
                                       {"java_msg_per_s",
                                        setup.batch > 1 ? nlohmann::json(std::round(
                                                              r.java_rates.back()))
                                                        : nlohmann::json(nullptr)},
                                       {"java_cpu_us_per_msg",
                                        setup.batch > 1 ? java_cpu["per_msg"]
                                                        : nlohmann::json(nullptr)},
                                       {"load1", bench::load_average_1m()}}
                            .dump()
                            .c_str());
            std::fflush(stdout);
        }
    }
    for (std::size_t c = 0; c < setups.size(); ++c) {
        const Results& r = results[c];
        const double ratio = bench::median(r.ratios);
        std::printf("%s\n",
                    nlohmann::json{
                        {"bench", "bridge"},
                        {"scenario", "summary"},
                        {"sessions", setups[c].sessions},
                        {"in_flight", setups[c].in_flight},
                        {"delay_ms", args.delay_ms},
                        {"flush_disk_type", rocketmq.durability().flush_disk_type},
                        {"broker_role", rocketmq.durability().broker_role},
                        {"send_ok", rocketmq::durability_name(rocketmq.durability().verdict)},
                        {"rounds", args.rounds},
                        {"messages_per_round", args.messages},
                        {"producer_msg_per_s", std::round(bench::median(r.producer_rates))},
                        {"bridge_msg_per_s", std::round(bench::median(r.bridge_rates))},
                        {"producer_send_p50_ms", bench::percentile(r.producer_latencies, 0.50)},
                        {"producer_send_p99_ms", bench::percentile(r.producer_latencies, 0.99)},
                        {"ratio_median_of_pairs", round2(ratio)},
                        {"ratio_min", round2(*std::min_element(r.ratios.begin(), r.ratios.end()))},
                        {"ratio_max", round2(*std::max_element(r.ratios.begin(), r.ratios.end()))},
                        {"speedup_vs_first_median", round2(bench::median(r.speedups))},
                        {"producer_cpu_us_per_msg_median", bench::median(r.producer_cpu_us)},
                        {"bridge_cpu_us_per_msg_median", bench::median(r.bridge_cpu_us)},
                        {"producer_cores_busy_median", round2(bench::median(r.producer_cores))},
                        {"bridge_cores_busy_median", round2(bench::median(r.bridge_cores))},
                        {"bridge_and_broker_cpu_us_per_msg_median",
                         bench::median(r.bridge_and_broker_cpu_us)},
                        {"batch", setups[c].batch},
                        {"java_msg_per_s", r.java_rates.empty()
                                               ? nlohmann::json(nullptr)
                                               : nlohmann::json(std::round(
                                                     bench::median(r.java_rates)))},
                        {"java_cpu_us_per_msg_median",
                         r.java_cpu_us.empty() ? nlohmann::json(nullptr)
                                               : nlohmann::json(bench::median(r.java_cpu_us))},
                        {"load1_at_end", bench::load_average_1m()},
                        {"target_ratio", 0.85},
                        {"meets_target", ratio >= 0.85}}
                        .dump()
                        .c_str());
    }
    if (batched) {
        // The first batched configuration against the single-send ones.
        const Results* batch = nullptr;
        const Results* one = nullptr;
        const Results* eight = nullptr;
        int batch_size = 0;
        std::size_t batch_setup = 0;
        for (std::size_t c = 0; c < setups.size(); ++c) {
            if (setups[c].batch > 1 && batch == nullptr) {
                batch = &results[c];
                batch_size = setups[c].batch;
                batch_setup = c;
            }
            if (setups[c].batch == 1 && setups[c].sessions == 1 && one == nullptr) one = &results[c];
            if (setups[c].batch == 1 && setups[c].sessions == 8 && eight == nullptr) {
                eight = &results[c];
            }
        }
        nlohmann::json added_p99 = nullptr;
        nlohmann::json wait_p99 = nullptr;
        nlohmann::json raw_p99 = nullptr;
        if (args.paced_s > 0) {
            const double rate = args.paced_rate > 0 ? args.paced_rate
                                                    : bench::median(batch->bridge_rates) / 2;
            const int count = std::max(100, static_cast<int>(rate * args.paced_s));
            const nlohmann::json status = measure_paced(
                dir,
                bridge_config(broker.uri(), rocketmq.name_servers(), topic, setups[batch_setup],
                              status_file, args.linger_ms),
                broker.uri(), make_envelopes("gw-" + setups[batch_setup].name(), count, args.devices),
                rate);
            if (status.is_null()) return 1;
            added_p99 = status["forward_latency_ms"]["p99"];
            wait_p99 = status["wait_latency_ms"]["p99"];
            rocketmq::Producer& raw = *producers[batch_setup];
            const pid_t broker_pid = rocketmq.broker_pid();
            const nlohmann::json one_at_a_time =
                paced_raw_limit(raw, topic + "_raw", count, rate, args, batch_size, 1, broker_pid);
            const nlohmann::json at_once =
                paced_raw_limit(raw, topic + "_raw", count, rate, args, batch_size,
                                bench::kThreadPerQueue, broker_pid);
            if (one_at_a_time.is_null() || at_once.is_null()) return 1;
            raw_p99 = one_at_a_time["forward_p99_ms"];
            std::printf("%s\n", nlohmann::json{{"bench", "bridge"},
                                               {"scenario", "paced_latency"},
                                               {"batch", batch_size},
                                               {"linger_ms", args.linger_ms},
                                               {"msg_per_s", std::round(rate)},
                                               {"messages", count},
                                               {"forward_p50_ms", status["forward_latency_ms"]["p50"]},
                                               {"forward_p99_ms", added_p99},
                                               {"send_p50_ms", status["send_latency_ms"]["p50"]},
                                               {"send_p99_ms", status["send_latency_ms"]["p99"]},
                                               {"wait_p50_ms", status["wait_latency_ms"]["p50"]},
                                               {"wait_p99_ms", status["wait_latency_ms"]["p99"]},
                                               {"batches", status["batches"]},
                                               {"batched", status["batched"]},
                                               {"target_p99_ms", args.linger_ms + 5},
                                               {"raw_one_at_a_time", one_at_a_time},
                                               {"raw_at_once", at_once},
                                               {"load1", bench::load_average_1m()}}
                                    .dump()
                                    .c_str());
            std::fflush(stdout);
        }
        std::printf(
            "%s\n",
            nlohmann::json{
                {"bench", "bridge"},
                {"scenario", "batch_comparison"},
                {"batch", batch_size},
                {"linger_ms", args.linger_ms},
                {"rounds", args.rounds},
                {"flush_disk_type", rocketmq.durability().flush_disk_type},
                {"batch_speedup_over_single",
                 median_ratio(&batch->bridge_rates, one ? &one->bridge_rates : nullptr)},
                {"batch_speedup_over_eight",
                 median_ratio(&batch->bridge_rates, eight ? &eight->bridge_rates : nullptr)},
                {"batch_ratio_to_java", median_ratio(&batch->bridge_rates, &batch->java_rates)},
                {"batch_cpu_over_eight",
                 median_ratio(&batch->bridge_and_broker_cpu_us,
                              eight ? &eight->bridge_and_broker_cpu_us : nullptr)},
                {"batch_bridge_and_broker_cpu_us_per_msg",
                 bench::median(batch->bridge_and_broker_cpu_us)},
                {"java_cpu_us_per_msg", bench::median(batch->java_cpu_us)},
                {"batch_added_p99_ms", added_p99},
                {"batch_added_p99_target_ms", args.linger_ms + 5},
                {"batch_wait_p99_ms", wait_p99},
                {"raw_paced_p99_ms", raw_p99},
                {"load1_at_end", bench::load_average_1m()}}
                .dump()
                .c_str());
    }
    return 0;
}
