// Bridge benchmark: MQTT -> RocketMQ throughput against the raw limit, our
// producer alone, measured on the same broker in the same run.
// Each round is a pair, measured back to back (which side goes first
// alternates), and prints one JSON line:
//   producer  N envelopes sent one at a time by rocketmq::Producer (KEYS =
//             eventId, sharded by device): msg/s;
//   bridge    N such envelopes queued in the bridge's persistent MQTT session
//             (mosquitto on loopback) while it is away, then drained by the
//             bridge (validate, dedupe, SEND_OK, PUBACK), timed from the first
//             forwarded message: msg/s and its send latency p50/p99;
//   ratio     bridge / producer of the pair.
// The summary line gives the median of the pair ratios (target >= 0.7):
// pairing cancels most of the load drift of a shared machine, which made
// separate medians swing from 0.4 to 2.6.
//
// Needs mosquitto (started here) and RocketMQ: the one OUTPOST_ROCKETMQ_ENV
// names, else one started here with scripts/rocketmq.sh (a minute or two).
//
// Usage: bridge_bench [--messages=1000] [--devices=16] [--rounds=10]
#include <mqtt/async_client.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "bench_support.h"
#include "bridge/bridge_stats.h"
#include "bridge/delivery.h"
#include "bridge/mqtt_session.h"
#include "bridge/rocketmq_sink.h"
#include "common/uuid.h"
#include "mosquitto_fixture.h"
#include "rocketmq/producer.h"
#include "temp_dir.h"

using namespace outpost;
using Steady = std::chrono::steady_clock;

namespace {

struct Args {
    int messages = 1000;
    int devices = 16;
    int rounds = 10;
};

struct Envelope {
    std::string topic;
    std::string device;
    std::string event_id;
    std::string payload;
};

// Envelopes shaped like the gateway's, one gateway, seq per device.
std::vector<Envelope> make_envelopes(int count, int devices) {
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
            {"gatewayId", "gw-bench"},
            {"deviceId", device},
            {"seq", ++seq[device]},
            {"aggregateType", "alarm"},
            {"aggregateId", device + "/overheat"},
            {"occurredAt", "1970-01-01T00:00:12.345Z"},
            {"bootId", "bench-boot"},
            {"uptimeMs", 12345 + i},
            {"payload", {{"alarmType", "overheat"}, {"severity", "major"}, {"value", 97.5}}}};
        envelopes.push_back({"outpost/gw-bench/alarm/" + device, device, id, envelope.dump()});
    }
    return envelopes;
}

// The RocketMQ to use: OUTPOST_ROCKETMQ_ENV's, or one started (and stopped)
// here in a temp directory.
class RocketMq final {
  public:
    RocketMq() {
        const char* env_path = std::getenv("OUTPOST_ROCKETMQ_ENV");
        std::string path = env_path != nullptr ? env_path : "";
        if (path.empty()) {
            std::fprintf(stderr, "bridge_bench: starting RocketMQ (no OUTPOST_ROCKETMQ_ENV)\n");
            own_dir_ = std::make_unique<testing::TempDir>();
            run("start " + own_dir_->path());
            path = own_dir_->file("env");
        }
        std::ifstream file(path);
        for (std::string key, value; std::getline(file, key, '=') && std::getline(file, value);) {
            env_[key] = value;
        }
    }
    ~RocketMq() {
        if (own_dir_) run("stop " + own_dir_->path());
    }
    RocketMq(const RocketMq&) = delete;
    RocketMq& operator=(const RocketMq&) = delete;

    std::string name_servers() { return env_["NAMESRV_ADDR"]; }

  private:
    static void run(const std::string& arguments) {
        const std::string command =
            std::string(OUTPOST_SOURCE_ROOT) + "/scripts/rocketmq.sh " + arguments + " >&2";
        if (std::system(command.c_str()) != 0) {
            std::fprintf(stderr, "bridge_bench: %s failed\n", command.c_str());
        }
    }

    std::unique_ptr<testing::TempDir> own_dir_;
    std::map<std::string, std::string> env_;
};

bridge::BridgeConfig bridge_config(const std::string& mqtt_uri, const std::string& name_servers,
                                   const std::string& topic) {
    bridge::BridgeConfig config;
    config.mqtt.uri = mqtt_uri;
    config.mqtt.client_id = "bridge-bench";
    config.mqtt.shared_group = "bench";
    config.rocketmq.name_servers = name_servers;
    config.rocketmq.producer_group = "outpost_bridge_bench";
    config.mapping = {{"outpost/+/alarm/+", topic, "${payload.severity}"}};
    config.quarantine_topic = topic + "_quarantine";
    config.status.log_to_stderr = false;
    return config;
}

// Runs a bridge session until `until` holds or `limit` passes. Returns the
// seconds from the first forwarded message until `until` held (-1 if it never
// did): connecting to mosquitto and the route lookup at the name server are
// set-up, which the producer scenario pays in its warm-up, not in its timing.
double run_bridge(const bridge::BridgeConfig& config, bridge::BridgeStats& stats,
                  const std::function<bool()>& until, std::chrono::seconds limit) {
    bridge::StopSignal stop;
    bridge::RocketMqSink sink(config.rocketmq);
    auto delivery = bridge::Delivery::create(config, sink, stats, stop);
    auto session = bridge::make_mqtt_session(config, **delivery, stats, stop);
    if (!delivery.is_ok() || !session.is_ok()) return -1;
    const auto started = Steady::now();
    std::thread runner([&] { (*session)->run(); });
    double seconds = -1;
    std::optional<Steady::time_point> first;
    while (Steady::now() - started < limit) {
        if (!first && stats.forwarded() > 0) first = Steady::now();
        if (until()) {
            seconds = std::chrono::duration<double>(Steady::now() - *first).count();
            break;
        }
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    stop.request_stop();
    runner.join();
    return seconds;
}

// Publishes every envelope at QoS 1 (window 10) and waits for the PUBACKs.
bool publish_all(const std::string& uri, const std::vector<Envelope>& envelopes) {
    try {
        mqtt::async_client client(uri, "gw-bench", mqtt::create_options(MQTTVERSION_5), nullptr);
        mqtt::connect_options options;
        options.set_mqtt_version(MQTTVERSION_5);
        options.set_clean_start(true);
        client.connect(options)->wait();
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

// Producer alone: `envelopes` sent one at a time. Returns msg/s; appends each
// send's latency in ms to `latencies`. Negative on a failed send.
double measure_producer(rocketmq::Producer& producer, const std::string& topic,
                        const std::vector<Envelope>& envelopes, std::vector<double>& latencies) {
    const auto start = Steady::now();
    for (const Envelope& envelope : envelopes) {
        const auto before = Steady::now();
        const auto sent =
            producer.send(topic, "major", envelope.event_id, envelope.payload, envelope.device);
        if (!sent.is_ok()) {
            std::fprintf(stderr, "producer send failed: %s\n", sent.status().message().c_str());
            return -1;
        }
        latencies.push_back(std::chrono::duration<double, std::milli>(Steady::now() - before).count());
    }
    return envelopes.size() / std::chrono::duration<double>(Steady::now() - start).count();
}

// The bridge: `envelopes` queued in its persistent session while it is away,
// then drained. Returns msg/s from the first forwarded message to the last
// (n - 1 intervals); negative if it did not drain. `status` gets its counters.
double measure_bridge(const bridge::BridgeConfig& config, const std::string& mqtt_uri,
                      const std::vector<Envelope>& envelopes, nlohmann::json& status) {
    if (!publish_all(mqtt_uri, envelopes)) return -1;
    bridge::BridgeStats stats;
    const double seconds = run_bridge(
        config, stats, [&] { return stats.forwarded() >= envelopes.size(); },
        std::chrono::seconds(300));
    status = nlohmann::json::parse(stats.to_json_line());
    if (seconds <= 0) {
        std::fprintf(stderr, "bridge did not drain: %s\n", stats.to_json_line().c_str());
        return -1;
    }
    return static_cast<double>(envelopes.size() - 1) / seconds;
}

}  // namespace

int main(int argc, char** argv) {
    Args args;
    if (!bench::parse_int_flags(
            argc, argv,
            {{"--messages", &args.messages}, {"--devices", &args.devices}, {"--rounds", &args.rounds}})) {
        return 2;
    }
    if (!testing::mosquitto_available()) {
        std::fprintf(stderr, "mosquitto is not installed\n");
        return 77;
    }
    RocketMq rocketmq;
    if (rocketmq.name_servers().empty()) {
        std::fprintf(stderr, "bridge_bench: no RocketMQ name server\n");
        return 1;
    }
    testing::Mosquitto broker;
    const std::string topic =
        "bench_bridge_" + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                             std::chrono::system_clock::now().time_since_epoch())
                                             .count());
    rocketmq::ProducerOptions producer_options;
    producer_options.name_server_addresses = rocketmq.name_servers();
    producer_options.producer_group = "outpost_bridge_bench";
    rocketmq::Producer producer(producer_options);
    // Warm-up creates both topics and the connection, so neither side pays
    // for them below.
    // A broker that has just started may not have registered its topic
    // template with the name server yet: retry for up to a minute.
    for (const std::string& name : {topic + "_raw", topic}) {
        const auto deadline = Steady::now() + std::chrono::seconds(60);
        auto warm = producer.send(name, "warm", "warm", "warm-up", "d");
        while (!warm.is_ok() && Steady::now() < deadline) {
            std::this_thread::sleep_for(std::chrono::seconds(1));
            warm = producer.send(name, "warm", "warm", "warm-up", "d");
        }
        if (!warm.is_ok()) {
            std::fprintf(stderr, "bridge_bench: warm-up send failed: %s\n",
                         warm.status().message().c_str());
            return 1;
        }
    }
    const bridge::BridgeConfig config = bridge_config(broker.uri(), rocketmq.name_servers(), topic);
    {
        // Creates the persistent session and its subscription, then leaves.
        bridge::BridgeStats setup_stats;
        run_bridge(
            config, setup_stats, [] { return false; }, std::chrono::seconds(2));
    }

    // Paired rounds, alternating which side goes first: the load on a shared
    // machine drifts, and a pair measured back to back sees nearly the same.
    std::vector<double> producer_rates, bridge_rates, ratios, producer_latencies;
    for (int round = 0; round < args.rounds; ++round) {
        double producer_rate = 0, bridge_rate = 0;
        nlohmann::json status;
        for (int side = 0; side < 2; ++side) {
            const bool producer_turn = (side == 0) == (round % 2 == 0);
            const std::vector<Envelope> envelopes = make_envelopes(args.messages, args.devices);
            if (producer_turn) {
                producer_rate = measure_producer(producer, topic + "_raw", envelopes, producer_latencies);
            } else {
                bridge_rate = measure_bridge(config, broker.uri(), envelopes, status);
            }
        }
        if (producer_rate <= 0 || bridge_rate <= 0) return 1;
        producer_rates.push_back(producer_rate);
        bridge_rates.push_back(bridge_rate);
        ratios.push_back(bridge_rate / producer_rate);
        std::printf("%s\n", nlohmann::json{{"bench", "bridge"},
                                           {"scenario", "pair"},
                                           {"round", round},
                                           {"messages", args.messages},
                                           {"producer_msg_per_s", std::round(producer_rate)},
                                           {"bridge_msg_per_s", std::round(bridge_rate)},
                                           {"ratio", std::round(ratios.back() * 100) / 100},
                                           {"bridge_send_p50_ms", status["send_latency_ms"]["p50"]},
                                           {"bridge_send_p99_ms", status["send_latency_ms"]["p99"]}}
                                .dump()
                                .c_str());
        std::fflush(stdout);
    }
    const double ratio = bench::median(ratios);
    std::printf("%s\n",
                nlohmann::json{{"bench", "bridge"},
                               {"scenario", "summary"},
                               {"rounds", args.rounds},
                               {"messages_per_round", args.messages},
                               {"producer_msg_per_s", std::round(bench::median(producer_rates))},
                               {"bridge_msg_per_s", std::round(bench::median(bridge_rates))},
                               {"producer_send_p50_ms", bench::percentile(producer_latencies, 0.50)},
                               {"producer_send_p99_ms", bench::percentile(producer_latencies, 0.99)},
                               {"ratio_median_of_pairs", std::round(ratio * 100) / 100},
                               {"ratio_min", std::round(*std::min_element(ratios.begin(), ratios.end()) * 100) / 100},
                               {"ratio_max", std::round(*std::max_element(ratios.begin(), ratios.end()) * 100) / 100},
                               {"target_ratio", 0.7},
                               {"meets_target", ratio >= 0.7}}
                    .dump()
                    .c_str());
    return 0;
}
