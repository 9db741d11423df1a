// Publisher benchmark against a mosquitto it starts itself on loopback.
// Prints one JSON line per scenario:
//   drain   a pre-filled backlog delivered and marked SENT per second, and
//           the same payloads published by bare paho with the same window
//           to the same broker in the same run (ratio; target >= 0.9),
//           medians over a few rounds. Both rates count from the moment
//           the client is connected (bare paho after its CONNACK; the
//           publisher from its first status that says connected);
//           "ratio_from_start" counts the publisher's from start(), and
//           "startup_ms" / "raw_paho_connect_ms" say what that start cost;
//           "round_publisher_per_s" / "round_raw_paho_per_s" each round's pair;
//   steady  record->PUBACK latency at a steady alarm rate (target p99 <=
//           20 ms on loopback), where "record" is the envelope's uptimeMs,
//           sampled as the store's transaction begins (so it includes the
//           commit's fsync); also publish->PUBACK and record_alarm itself;
//   drain_receipts  the same drain with receipts on: a receipt
//           sender in its own process (receipt_responder.h: the bridge's
//           ReceiptBatcher and receipt sender, without RocketMQ) confirms
//           what arrives; the rate counts rows confirmed, against bare
//           paho with the responder subscribed too (target >= 0.8), and
//           "sent_per_s" counts rows SENT; the WAL bytes include
//           the SENT marks and the confirmations;
//   receipt_split  one drain with the responder holding its receipts until
//           every row is SENT, then releasing them: WAL bytes per alarm of
//           the SENT marks and of the confirmations apart (could the SENT
//           mark be dropped with receipts on?);
//   wal     WAL bytes per alarm, inserts plus SENT marks, for both runs,
//           and with receipts on.
// drain and drain_receipts also print CPU microseconds per alarm (robust on a loaded machine, where rates are not): each thread of this
// process by name (outpost-pub, outpost-mark, paho = MQTTAsync_*, main =
// the bench's own thread, other), the broker and the responder, for the
// publisher phase and for the bare paho phase, medians over the rounds.
// "process" is what the gateway would spend: every thread of this process,
// less the bench's main thread in the publisher phase (it only polls the
// status); in the bare paho phase the main thread is the publishing
// application and counts. "cpu_ratio": publisher process / raw process,
// the median of the rounds' ratios (each round's two phases run back to
// back, so they share the machine's load of the moment). "cores_busy" /
// "raw_paho_cores_busy": the cores each phase kept busy (gateway process,
// broker, responder), of "cores": a phase well below them is bound by its
// hand-offs and round trips, not by the machine's CPU.
//
// Usage: publish_bench [--alarms=20000] [--window=20] [--rate=500]
//                      [--seconds=5] [--devices=16] [--rounds=3]
//                      [--scenarios=15]  (bits: 1 drain, 2 drain_receipts,
//                                         4 receipt_split, 8 steady)
#include <mqtt/async_client.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "bench_support.h"
#include "mosquitto_fixture.h"
#include "outpost/publisher.h"
#include "outpost/store.h"
#include "paho/client_setup.h"
#include "receipt_responder.h"
#include "store/outbox.h"
#include "store/store_internal.h"
#include "temp_dir.h"
#include "thread_cpu.h"

using namespace outpost;
using Steady = std::chrono::steady_clock;

namespace {

struct Args {
    int alarms = 20000;
    int window = 20;
    int rate = 500;
    int seconds = 5;
    int devices = 16;
    int rounds = 3;
    int scenarios = 15;
};

enum Scenario { kDrain = 1, kDrainReceipts = 2, kReceiptSplit = 4, kSteady = 8 };

// CPU of one phase (bare paho, or the publisher): this process by thread
// group, the broker and the responder (pid -1: none).
class CpuPhase {
  public:
    CpuPhase(pid_t broker, pid_t responder) : broker_pid_(broker), responder_pid_(responder) {}
    void start() { take(self_[0], broker_[0], responder_[0]); }
    void finish() { take(self_[1], broker_[1], responder_[1]); }

    // Microseconds per alarm by group; "process" as the header says.
    std::map<std::string, double> us_per_alarm(int alarms, bool main_counts) const {
        const pid_t main_tid = ::getpid();
        auto groups =
            bench::cpu_between(self_[0], self_[1], [&](pid_t tid, const std::string& name) {
                if (tid == main_tid) return std::string("main");
                if (name.rfind("MQTTAsync", 0) == 0) return std::string("paho");
                if (name == "outpost-pub" || name == "outpost-mark") return name;
                return std::string("other");
            });
        std::map<std::string, double> figures;
        double process = 0;
        for (const auto& [group, ns] : groups) {
            figures[group] = ns / 1000.0 / alarms;
            if (group != "main" || main_counts) process += figures[group];
        }
        figures["process"] = process;
        figures["broker"] = bench::process_cpu_between(broker_[0], broker_[1]) / 1000.0 / alarms;
        if (responder_pid_ > 0) {
            figures["responder"] =
                bench::process_cpu_between(responder_[0], responder_[1]) / 1000.0 / alarms;
        }
        return figures;
    }

  private:
    void take(bench::ThreadCpu& self, bench::ThreadCpu& broker, bench::ThreadCpu& responder) {
        self = bench::sample_thread_cpu(::getpid());
        broker = bench::sample_thread_cpu(broker_pid_);
        if (responder_pid_ > 0) responder = bench::sample_thread_cpu(responder_pid_);
    }
    const pid_t broker_pid_ = 0;
    const pid_t responder_pid_ = 0;
    bench::ThreadCpu self_[2], broker_[2], responder_[2];
};

// Medians, group by group, of per-round figures.
nlohmann::json median_figures(const std::vector<std::map<std::string, double>>& rounds) {
    std::map<std::string, std::vector<double>> values;
    for (const auto& round : rounds)
        for (const auto& [group, value] : round) values[group].push_back(value);
    nlohmann::json figures = nlohmann::json::object();
    for (const auto& [group, samples] : values)
        figures[group] = std::round(bench::median(samples) * 100) / 100;
    return figures;
}

double seconds_since(Steady::time_point start) {
    return std::chrono::duration<double>(Steady::now() - start).count();
}

Alarm bench_alarm(int i, int devices) {
    Alarm alarm;
    alarm.device_id = "dev-" + std::to_string(i % devices);
    alarm.alarm_type = "OVER_TEMPERATURE";
    alarm.severity = Severity::kCritical;
    alarm.value = 90.0 + i % 10;
    alarm.unit = "degC";
    alarm.text = "bearing temperature above limit";
    return alarm;
}

std::unique_ptr<Store> open_bench_store(const std::string& path) {
    StoreOptions options;
    options.gateway_id = "gw-bench";
    options.quota_bytes = 1ull << 30;
    auto store = Store::open(path, options);
    if (!store) {
        std::fprintf(stderr, "open %s: %s\n", path.c_str(), store.status().to_string().c_str());
        std::exit(1);
    }
    return std::move(*store);
}

// Fills the backlog from 8 threads so that group commit batches the inserts.
void prefill(Store& store, int alarms, int devices) {
    std::vector<std::thread> writers;
    std::atomic<int> next{0};
    for (int t = 0; t < 8; ++t) {
        writers.emplace_back([&] {
            for (int i = next++; i < alarms; i = next++) {
                auto recorded = store.record_alarm(bench_alarm(i, devices));
                if (!recorded) {
                    std::fprintf(stderr, "record: %s\n", recorded.status().to_string().c_str());
                    std::exit(1);
                }
            }
        });
    }
    for (auto& writer : writers) writer.join();
}

uint64_t wal_bytes(Store& store) {
    auto stats = store.stats();
    return stats ? stats->wal_bytes : 0;
}

uint64_t commits(Store& store) {
    auto stats = store.stats();
    return stats ? stats->commits : 0;
}

PublisherOptions bench_publisher_options(const testing::Mosquitto& broker, int window,
                                         bool receipts = false) {
    PublisherOptions options;
    options.endpoint.uri = broker.uri();
    options.endpoint.client_id = "bench-publisher";
    options.max_in_flight = window;
    // With receipts: every confirmation comes from the responder, none is
    // waited out (no republish within a round), and no row waits for room
    // under max_unconfirmed (the drain is about the publisher's pace).
    options.receipts = receipts;
    options.receipt_timeout = std::chrono::seconds(60);
    options.max_unconfirmed = 1000000;
    return options;
}

// Bare paho: same topics, same payloads, same window, QoS 1, v5.
class RawListener final : public mqtt::iaction_listener {
  public:
    void on_success(const mqtt::token&) override { done(); }
    void on_failure(const mqtt::token&) override {
        failed_++;
        done();
    }
    void wait_below(int window) {
        std::unique_lock<std::mutex> lock(mutex_);
        room_.wait(lock, [&] { return in_flight_ < window; });
        ++in_flight_;
    }
    void wait_empty() {
        std::unique_lock<std::mutex> lock(mutex_);
        room_.wait(lock, [&] { return in_flight_ == 0; });
    }
    int failed() const { return failed_; }

  private:
    void done() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            --in_flight_;
        }
        room_.notify_all();
    }
    std::mutex mutex_;
    std::condition_variable room_;
    int in_flight_ = 0;  // guarded by mutex_
    std::atomic<int> failed_{0};
};

// The clock starts once connected; `connect_ms` receives how long the
// CONNECT took.
double raw_paho_rate(const testing::Mosquitto& broker, const std::vector<store::OutboxRow>& rows,
                     int window, CpuPhase& cpu, double& connect_ms) {
    mqtt::create_options create(MQTTVERSION_5);
    mqtt::async_client client(broker.uri(), "bench-raw", create,
                              static_cast<mqtt::iclient_persistence*>(nullptr));
    mqtt::connect_options options;
    options.set_mqtt_version(MQTTVERSION_5);
    options.set_clean_start(true);
    const auto connect_start = Steady::now();
    client.connect(options)->wait_for(std::chrono::seconds(5));
    connect_ms = seconds_since(connect_start) * 1000;
    RawListener listener;
    cpu.start();
    const auto start = Steady::now();
    for (const auto& row : rows) {
        listener.wait_below(window);
        client.publish("outpost/gw-bench/" + row.topic_suffix, row.envelope.data(),
                       row.envelope.size(), 1, false, nullptr, listener);
    }
    listener.wait_empty();
    const double elapsed = seconds_since(start);
    cpu.finish();  // before paho's threads end with the client
    client.disconnect()->wait_for(std::chrono::seconds(5));
    if (listener.failed() > 0) std::fprintf(stderr, "raw paho: %d failures\n", listener.failed());
    return static_cast<double>(rows.size()) / elapsed;
}

// When a drain reached its milestones, in seconds since the publisher's
// start(): connected (its status first said so: lease, epoch, CONNACK and
// the retained "online" are behind it) and done (the counter reached its
// count; -1: `limit` passed first).
struct DrainTimes {
    double connected_s = -1;
    double done_s = -1;
};

// Waits until the publisher's counter `field` (sent, confirmed) reaches
// `count`, polling its status every millisecond.
DrainTimes wait_for_count(Publisher& publisher, uint64_t PublisherStatus::*field, uint64_t count,
                          std::chrono::seconds limit, Steady::time_point start) {
    DrainTimes times;
    const auto deadline = Steady::now() + limit;
    for (;;) {
        const PublisherStatus status = publisher.status();
        if (times.connected_s < 0 && status.connected) times.connected_s = seconds_since(start);
        if (status.*field >= count) break;
        if (Steady::now() > deadline) return times;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    times.done_s = seconds_since(start);
    return times;
}

bool wait_for_sent(Publisher& publisher, uint64_t count, std::chrono::seconds limit) {
    return wait_for_count(publisher, &PublisherStatus::sent, count, limit, Steady::now()).done_s >=
           0;
}

bool wait_for_confirmed(Publisher& publisher, uint64_t count, std::chrono::seconds limit) {
    return wait_for_count(publisher, &PublisherStatus::confirmed, count, limit, Steady::now())
               .done_s >= 0;
}

struct DrainRound {
    double publisher_rate = 0;  // rows SENT (or confirmed, with receipts) per second, once connected
    double from_start_rate = 0;  // the same from start(): lease, epoch, CONNACK, "online" included
    double sent_rate = 0;        // rows SENT per second, once connected
    double startup_ms = 0;       // start() until the status said connected
    double raw_rate = 0;         // bare paho, its CONNACK before the clock starts
    double raw_connect_ms = 0;
    uint64_t wal_insert_bytes = 0;
    uint64_t wal_total_bytes = 0;
    uint64_t drain_commits = 0;  // write transactions of the publisher phase
    int window = 0;
    bool drained = false;
    std::map<std::string, double> cpu_us;      // publisher phase, per alarm
    std::map<std::string, double> raw_cpu_us;  // bare paho phase, per alarm
};

// One round: a fresh backlog, bare paho over its rows, then the publisher.
// With receipts the responder is subscribed for both, so the bare paho run
// carries the same broker and responder load; its receipts reach nobody (the
// publisher is not connected yet) or name rows not yet SENT, which the
// publisher ignores, and the responder answers every later arrival again.
DrainRound drain_round(const testing::Mosquitto& broker, const Args& args, bool receipts) {
    testing::TempDir dir;
    auto store = open_bench_store(dir.file("drain.db"));
    prefill(*store, args.alarms, args.devices);
    DrainRound round;
    round.wal_insert_bytes = wal_bytes(*store);
    const uint64_t commits_before = commits(*store);

    // The raw baseline publishes exactly the envelopes the publisher will.
    auto reader = store::core_of(*store).open_reader();
    auto rows = store::fetch_pending(*reader, 0, args.alarms);
    if (!rows) std::exit(1);
    std::unique_ptr<bench::ReceiptResponder> responder;
    if (receipts)
        responder = std::make_unique<bench::ReceiptResponder>(broker.uri(), dir.path(), false);
    const pid_t responder_pid = responder ? responder->pid() : -1;
    CpuPhase raw_cpu(broker.pid(), responder_pid);
    round.raw_rate = raw_paho_rate(broker, *rows, args.window, raw_cpu, round.raw_connect_ms);
    round.raw_cpu_us = raw_cpu.us_per_alarm(args.alarms, /*main_counts=*/true);
    CpuPhase cpu(broker.pid(), responder_pid);
    cpu.start();
    const auto start = Steady::now();
    auto publisher =
        Publisher::start(*store, bench_publisher_options(broker, args.window, receipts));
    if (!publisher) std::exit(1);
    const auto alarms = static_cast<uint64_t>(args.alarms);
    const std::chrono::seconds limit(300);
    const DrainTimes sent = wait_for_count(**publisher, &PublisherStatus::sent, alarms, limit, start);
    DrainTimes done = sent;
    if (receipts && sent.done_s >= 0) {
        done = wait_for_count(**publisher, &PublisherStatus::confirmed, alarms, limit, start);
        done.connected_s = sent.connected_s;
    }
    round.drained = done.done_s >= 0;
    // Like with like: bare paho's clock starts after its CONNACK, so the
    // publisher's rate counts from its first status that said connected
    // (the polling adds at most 1 ms; the window's first publishes may
    // already be out). From start() is printed beside it.
    round.startup_ms = sent.connected_s * 1000;
    round.sent_rate = args.alarms / (sent.done_s - sent.connected_s);
    round.publisher_rate = args.alarms / (done.done_s - done.connected_s);
    round.from_start_rate = args.alarms / done.done_s;
    cpu.finish();  // before stop() joins the publisher's threads
    round.cpu_us = cpu.us_per_alarm(args.alarms, /*main_counts=*/false);
    round.window = (*publisher)->status().window;
    (*publisher)->stop().ignore_error("the figures are taken; a slow stop does not change them");
    round.wal_total_bytes = wal_bytes(*store);
    round.drain_commits = commits(*store) - commits_before;
    return round;
}

// Cores a phase kept busy: its CPU per alarm (the gateway process, the
// broker, the responder) times its alarms per second.
double cores_busy(const std::map<std::string, double>& us_per_alarm, double alarms_per_s) {
    double us = us_per_alarm.at("process") + us_per_alarm.at("broker");
    if (auto responder = us_per_alarm.find("responder"); responder != us_per_alarm.end()) {
        us += responder->second;
    }
    return us * alarms_per_s / 1e6;
}

std::vector<int64_t> rounded_rates(const std::vector<double>& rates) {
    std::vector<int64_t> out;
    for (double rate : rates) out.push_back(std::llround(rate));
    return out;
}

// Three rounds, medians: a shared 2-core box makes single runs noisy.
nlohmann::json drain(const testing::Mosquitto& broker, const Args& args, bool receipts) {
    std::vector<DrainRound> rounds;
    for (int i = 0; i < args.rounds; ++i) rounds.push_back(drain_round(broker, args, receipts));
    std::vector<double> publisher_rates, sent_rates, raw_rates, ratios, cpu_ratios, commit_rates;
    std::vector<double> cores, raw_cores, from_start_rates, startups, raw_connects;
    std::vector<std::map<std::string, double>> cpu, raw_cpu;
    bool drained = true;
    for (const auto& round : rounds) {
        cpu.push_back(round.cpu_us);
        raw_cpu.push_back(round.raw_cpu_us);
        cpu_ratios.push_back(round.cpu_us.at("process") / round.raw_cpu_us.at("process"));
        publisher_rates.push_back(round.publisher_rate);
        sent_rates.push_back(round.sent_rate);
        from_start_rates.push_back(round.from_start_rate / round.raw_rate);
        startups.push_back(round.startup_ms);
        raw_connects.push_back(round.raw_connect_ms);
        raw_rates.push_back(round.raw_rate);
        ratios.push_back(round.publisher_rate / round.raw_rate);
        commit_rates.push_back(1000.0 * static_cast<double>(round.drain_commits) / args.alarms);
        cores.push_back(cores_busy(round.cpu_us, round.from_start_rate));  // CPU of the whole phase
        raw_cores.push_back(cores_busy(round.raw_cpu_us, round.raw_rate));
        drained = drained && round.drained;
    }
    const double rate = bench::median(publisher_rates);
    const double raw_rate = bench::median(raw_rates);
    const DrainRound& last = rounds.back();
    const auto alarms = static_cast<uint64_t>(args.alarms);
    return {{"scenario", receipts ? "drain_receipts" : "drain"},
            {"rate_counts", receipts ? "rows confirmed by a receipt" : "rows SENT"},
            {"sent_per_s", static_cast<int64_t>(bench::median(sent_rates))},
            {"round_ratios", ratios},
            {"round_publisher_per_s", rounded_rates(publisher_rates)},
            {"round_raw_paho_per_s", rounded_rates(raw_rates)},
            {"alarms", args.alarms},
            {"rounds", args.rounds},
            {"window", last.window},
            {"drained", drained},
            {"publisher_per_s", static_cast<int64_t>(rate)},
            {"raw_paho_per_s", static_cast<int64_t>(raw_rate)},
            {"ratio", std::round(rate / raw_rate * 100) / 100},
            // From start(), as printed before 2026-12-04: the publisher's
            // lease, epoch transaction, CONNACK and retained "online" count
            // against it, bare paho's CONNACK does not.
            {"ratio_from_start", std::round(bench::median(from_start_rates) * 100) / 100},
            {"startup_ms", std::round(bench::median(startups) * 10) / 10},
            {"raw_paho_connect_ms", std::round(bench::median(raw_connects) * 10) / 10},
            // Targets: drain >= 0.9 of raw paho; with receipts on, confirmed >= 0.8.
            {"target_ratio", receipts ? 0.8 : 0.9},
            {"wal_bytes_per_alarm", last.wal_total_bytes / alarms},
            {"wal_insert_bytes_per_alarm", last.wal_insert_bytes / alarms},
            {"wal_mark_bytes_per_alarm", (last.wal_total_bytes - last.wal_insert_bytes) / alarms},
            {"cpu_us_per_alarm", median_figures(cpu)},
            {"raw_paho_cpu_us_per_alarm", median_figures(raw_cpu)},
            {"cpu_ratio", std::round(bench::median(cpu_ratios) * 100) / 100},
            // Is a phase bound by the machine's CPU? Cores its gateway
            // process, the broker and the responder kept busy, of `cores`.
            {"cores_busy", std::round(bench::median(cores) * 100) / 100},
            {"raw_paho_cores_busy", std::round(bench::median(raw_cores) * 100) / 100},
            {"cores", static_cast<int>(std::thread::hardware_concurrency())},
            // SENT marks and confirmations (and the lease): each a BEGIN,
            // a summary write, a COMMIT and an fsync on outpost-mark.
            {"transactions_per_1000_alarms", std::round(bench::median(commit_rates) * 10) / 10},
            {"load_average_1m", bench::load_average_1m()}};
}

// One drain whose receipts the responder holds until every row is SENT:
// the WAL bytes of the SENT marks and of the confirmations, apart.
nlohmann::json receipt_split(const testing::Mosquitto& broker, const Args& args) {
    testing::TempDir dir;
    auto store = open_bench_store(dir.file("split.db"));
    prefill(*store, args.alarms, args.devices);
    const uint64_t inserted = wal_bytes(*store);
    bench::ReceiptResponder responder(broker.uri(), dir.path(), true);
    auto publisher = Publisher::start(*store, bench_publisher_options(broker, args.window, true));
    if (!publisher) std::exit(1);
    const auto alarms = static_cast<uint64_t>(args.alarms);
    bool drained = wait_for_sent(**publisher, alarms, std::chrono::seconds(300));
    const uint64_t marked = wal_bytes(*store);
    responder.release();
    drained = drained && wait_for_confirmed(**publisher, alarms, std::chrono::seconds(300));
    const uint64_t confirmed = wal_bytes(*store);
    const PublisherStatus status = (*publisher)->status();
    (*publisher)->stop().ignore_error("the figures are taken; a slow stop does not change them");
    return {{"scenario", "receipt_split"},
            {"alarms", args.alarms},
            {"drained_and_confirmed", drained},
            {"republished", status.republished},
            {"wal_insert_bytes_per_alarm", inserted / alarms},
            {"wal_sent_mark_bytes_per_alarm", (marked - inserted) / alarms},
            {"wal_confirm_bytes_per_alarm", (confirmed - marked) / alarms}};
}

nlohmann::json steady(const testing::Mosquitto& broker, const Args& args) {
    testing::TempDir dir;
    auto store = open_bench_store(dir.file("steady.db"));
    auto publisher = Publisher::start(*store, bench_publisher_options(broker, args.window));
    if (!publisher) std::exit(1);
    while (!(*publisher)->status().connected)
        std::this_thread::sleep_for(std::chrono::milliseconds(5));

    const int total = args.rate * args.seconds;
    const auto interval = std::chrono::nanoseconds(1'000'000'000LL / args.rate);
    std::vector<double> record_ms;
    const auto start = Steady::now();
    for (int i = 0; i < total; ++i) {
        std::this_thread::sleep_until(start + interval * i);
        const auto before = Steady::now();
        auto recorded = store->record_alarm(bench_alarm(i, args.devices));
        if (!recorded) std::exit(1);
        record_ms.push_back(
            std::chrono::duration<double, std::milli>(Steady::now() - before).count());
    }
    const double achieved = total / seconds_since(start);
    const bool drained =
        wait_for_sent(**publisher, static_cast<uint64_t>(total), std::chrono::seconds(60));
    PublisherStatus status = (*publisher)->status();
    (*publisher)->stop().ignore_error("the figures are taken; a slow stop does not change them");
    return {{"scenario", "steady"},
            {"alarms", total},
            {"target_rate_per_s", args.rate},
            {"achieved_rate_per_s", static_cast<int64_t>(achieved)},
            {"drained", drained},
            {"record_to_puback_p50_ms", bench::ms_of_us(status.commit_to_ack_p50_us)},
            {"record_to_puback_p99_ms", bench::ms_of_us(status.commit_to_ack_p99_us)},
            {"target_p99_ms", 20},
            {"publish_to_puback_p50_ms", bench::ms_of_us(status.publish_to_ack_p50_us)},
            {"publish_to_puback_p99_ms", bench::ms_of_us(status.publish_to_ack_p99_us)},
            {"record_alarm_p50_ms", bench::percentile(record_ms, 0.50)},
            {"record_alarm_p99_ms", bench::percentile(record_ms, 0.99)},
            {"wal_bytes_per_alarm", wal_bytes(*store) / static_cast<uint64_t>(total)}};
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::string(argv[1]) == bench::kResponderRole) {
        return bench::run_receipt_responder(argc, argv);
    }
    Args args;
    if (!bench::parse_int_flags(argc, argv,
                                {{"--alarms", &args.alarms},
                                 {"--window", &args.window},
                                 {"--rate", &args.rate},
                                 {"--seconds", &args.seconds},
                                 {"--devices", &args.devices},
                                 {"--rounds", &args.rounds},
                                 {"--scenarios", &args.scenarios}})) {
        return 2;
    }
    if (!testing::mosquitto_available()) {
        std::fprintf(stderr, "mosquitto is not installed\n");
        return 77;
    }
    // The bare paho loop runs under the paho settings Outpost's clients get
    // (trace ring for errors only, OpenSSL left to itself), from round 1.
    paho::configure_process();
    testing::MosquittoConfig config;
    config.max_inflight_messages = args.window;  // the Receive Maximum both clients see
    testing::Mosquitto broker(config);

    auto run = [&](Scenario scenario, auto produce) {
        if ((args.scenarios & scenario) == 0) return nlohmann::json();
        nlohmann::json figures = produce();
        std::printf("%s\n", figures.dump().c_str());
        std::fflush(stdout);
        return figures;
    };
    const nlohmann::json drained = run(kDrain, [&] { return drain(broker, args, false); });
    const nlohmann::json confirmed = run(kDrainReceipts, [&] { return drain(broker, args, true); });
    run(kReceiptSplit, [&] { return receipt_split(broker, args); });
    const nlohmann::json steady_state = run(kSteady, [&] { return steady(broker, args); });
    if (args.scenarios != 15) return 0;  // the WAL summary needs every scenario
    nlohmann::json wal{
        {"scenario", "wal"},
        {"drain_bytes_per_alarm", drained["wal_bytes_per_alarm"]},
        {"drain_insert_bytes_per_alarm", drained["wal_insert_bytes_per_alarm"]},
        {"drain_mark_bytes_per_alarm", drained["wal_mark_bytes_per_alarm"]},
        {"drain_receipts_bytes_per_alarm", confirmed["wal_bytes_per_alarm"]},
        {"drain_receipts_mark_and_confirm_bytes_per_alarm", confirmed["wal_mark_bytes_per_alarm"]},
        {"receipts_extra_bytes_per_alarm", confirmed["wal_bytes_per_alarm"].get<int64_t>() -
                                               drained["wal_bytes_per_alarm"].get<int64_t>()},
        {"limit_extra_bytes_per_alarm", 1024},
        {"steady_bytes_per_alarm", steady_state["wal_bytes_per_alarm"]}};
    std::printf("%s\n", wal.dump().c_str());
    return 0;
}
