// Bridge benchmark: MQTT -> RocketMQ throughput against the raw limit, our
// producer alone, measured on the same broker in the same run.
// Prints one JSON line per scenario and a summary line:
//   producer  N envelopes sent one at a time by rocketmq::Producer (KEYS =
//             eventId, sharded by device): msg/s and send latency p50/p99;
//   bridge    the same N envelopes queued in the bridge's persistent MQTT
//             session (mosquitto on loopback), then drained by the bridge
//             (validate, dedupe, SEND_OK, PUBACK): msg/s and send latency;
//   summary   medians over the rounds and bridge/producer (target >= 0.7).
//
// Needs mosquitto (started here) and RocketMQ: the one OUTPOST_ROCKETMQ_ENV
// names, else one started here with scripts/rocketmq.sh (a minute or two).
//
// Usage: bridge_bench [--messages=2000] [--devices=16] [--rounds=3]
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
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

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
    int messages = 2000;
    int devices = 16;
    int rounds = 3;
};

bool parse_args(int argc, char** argv, Args& args) {
    std::map<std::string, int*> fields = {
        {"--messages", &args.messages}, {"--devices", &args.devices}, {"--rounds", &args.rounds}};
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const std::size_t equals = arg.find('=');
        auto field = fields.find(arg.substr(0, equals));
        if (equals == std::string::npos || field == fields.end()) {
            std::fprintf(stderr, "usage: bridge_bench [--messages=N] [--devices=N] [--rounds=N]\n");
            return false;
        }
        *field->second = std::atoi(arg.c_str() + equals + 1);
    }
    return args.messages > 0 && args.devices > 0 && args.rounds > 0;
}

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

double percentile_ms(std::vector<double> samples, double fraction) {
    if (samples.empty()) return 0;
    std::sort(samples.begin(), samples.end());
    const auto index = static_cast<std::size_t>(fraction * static_cast<double>(samples.size() - 1));
    return samples[index];
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values.empty() ? 0 : values[values.size() / 2];
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

// Runs a bridge session until `until` holds or `limit` passes; returns the
// seconds from start until `until` held (or -1).
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
    while (Steady::now() - started < limit) {
        if (until()) {
            seconds = std::chrono::duration<double>(Steady::now() - started).count();
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
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

}  // namespace

int main(int argc, char** argv) {
    Args args;
    if (!parse_args(argc, argv, args)) return 2;
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
    const std::string run = std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                               std::chrono::system_clock::now().time_since_epoch())
                                               .count());
    std::vector<double> producer_rates;
    std::vector<double> bridge_rates;
    for (int round = 0; round < args.rounds; ++round) {
        const std::string topic = "bench_bridge_" + run + "_" + std::to_string(round);
        rocketmq::ProducerOptions producer_options;
        producer_options.name_server_addresses = rocketmq.name_servers();
        producer_options.producer_group = "outpost_bridge_bench";
        rocketmq::Producer producer(producer_options);
        // Warm-up creates both topics, so neither side pays for it below.
        producer.send(topic + "_raw", "warm", "warm", "warm-up", "d");
        producer.send(topic, "warm", "warm", "warm-up", "d");

        // Producer alone, one at a time.
        const std::vector<Envelope> raw = make_envelopes(args.messages, args.devices);
        std::vector<double> latencies;
        const auto raw_start = Steady::now();
        for (const Envelope& envelope : raw) {
            const auto before = Steady::now();
            if (!producer
                     .send(topic + "_raw", "major", envelope.event_id, envelope.payload,
                           envelope.device)
                     .is_ok()) {
                std::fprintf(stderr, "producer send failed\n");
                return 1;
            }
            latencies.push_back(
                std::chrono::duration<double, std::milli>(Steady::now() - before).count());
        }
        const double raw_rate =
            raw.size() / std::chrono::duration<double>(Steady::now() - raw_start).count();
        producer_rates.push_back(raw_rate);
        std::printf("%s\n", nlohmann::json{{"bench", "bridge"},
                                           {"scenario", "producer"},
                                           {"round", round},
                                           {"messages", raw.size()},
                                           {"msg_per_s", std::round(raw_rate)},
                                           {"send_p50_ms", percentile_ms(latencies, 0.50)},
                                           {"send_p99_ms", percentile_ms(latencies, 0.99)}}
                                .dump()
                                .c_str());

        // The bridge draining the same messages from its persistent session.
        bridge::BridgeConfig config = bridge_config(broker.uri(), rocketmq.name_servers(), topic);
        // A fresh session and group per round: mosquitto keeps feeding the
        // persistent sessions of earlier rounds their share of a group.
        config.mqtt.client_id = "bridge-bench-" + std::to_string(round);
        config.mqtt.shared_group = "bench-" + std::to_string(round);
        bridge::BridgeStats setup_stats;
        // Creates the session and its subscription, then leaves (clean stop).
        run_bridge(
            config, setup_stats, [] { return false; }, std::chrono::seconds(2));
        const std::vector<Envelope> queued = make_envelopes(args.messages, args.devices);
        if (!publish_all(broker.uri(), queued)) return 1;
        bridge::BridgeStats stats;
        const double seconds = run_bridge(
            config, stats, [&] { return stats.forwarded() >= queued.size(); },
            std::chrono::seconds(300));
        if (seconds < 0) {
            std::fprintf(stderr, "bridge did not drain: %s\n", stats.to_json_line().c_str());
            return 1;
        }
        const double bridge_rate = queued.size() / seconds;
        bridge_rates.push_back(bridge_rate);
        const nlohmann::json status = nlohmann::json::parse(stats.to_json_line());
        std::printf("%s\n", nlohmann::json{{"bench", "bridge"},
                                           {"scenario", "bridge"},
                                           {"round", round},
                                           {"messages", queued.size()},
                                           {"msg_per_s", std::round(bridge_rate)},
                                           {"send_p50_ms", status["send_latency_ms"]["p50"]},
                                           {"send_p99_ms", status["send_latency_ms"]["p99"]},
                                           {"ratio", bridge_rate / raw_rate}}
                                .dump()
                                .c_str());
    }
    const double ratio = median(bridge_rates) / median(producer_rates);
    std::printf("%s\n", nlohmann::json{{"bench", "bridge"},
                                       {"scenario", "summary"},
                                       {"rounds", args.rounds},
                                       {"producer_msg_per_s", std::round(median(producer_rates))},
                                       {"bridge_msg_per_s", std::round(median(bridge_rates))},
                                       {"ratio", std::round(ratio * 100) / 100},
                                       {"target_ratio", 0.7},
                                       {"meets_target", ratio >= 0.7}}
                            .dump()
                            .c_str());
    return 0;
}
