// Fairness benchmark: what one flooding gateway costs the others' alarms.
// Four well-behaved gateways publish alarms at --rate each per second; in the
// flood conditions a fifth publishes ten times as many as the four together.
// All go through one outpost-bridge (the binary as deployed, receipts on,
// flush_ms 1) to RocketMQ. The figure is the four's publish->receipt latency
// (the receipt leaves the bridge after SEND_OK): from the publish call to the
// receipt naming the eventId, at one receipt listener on the same broker.
//
// Conditions, each with --seconds of traffic, then until every alarm of the
// four has its receipt (at most 120 s):
//   quiet           the four alone, limits as in flood_budget;
//   flood_budget    with the flooder, limits.max_messages_per_s_per_gateway
//                   --budget (the four stay under it);
//   flood_instance  with the flooder, limits.max_messages_per_s
//                   --instance-limit instead (every gateway waits for the
//                   instance's slots: the limit a deployment had before);
//   flood_unlimited with the flooder, no limit at all (what RocketMQ and
//                   the bridge absorb here when nothing holds the flood).
// A round runs the four back to back; each condition's p50 and p99 are
// divided by quiet's of the same round (the limit: the same path without the
// flooder, measured in the same run). The flooder does not republish what
// the bridge paced (a gateway would, after its receipt timeout; here it
// publishes new alarms at its rate instead, the same load on the bridge).
//
// CPU: `bridge_cpu_us_per_msg` is the outpost-bridge process's user+system
// CPU over the condition's window (first measured publish to the last receipt of the
// four) per message it received (paced ones included);
// `bridge_cpu_us_per_forwarded` per message it sent to RocketMQ.
//
// Prints one JSON line per condition per round, then one summary line per
// condition with the medians over rounds.
//
// Needs mosquitto (started here) and RocketMQ (OUTPOST_ROCKETMQ_ENV; topics
// are auto-created, as scripts/rocketmq.sh configures).
//
// Usage: gateway_fairness_bench [--rounds=3] [--seconds=5] [--rate=10]
//                               [--budget=20] [--instance-limit=100]
#include <mqtt/async_client.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "bench_mqtt.h"
#include "bench_support.h"
#include "child_process.h"
#include "common/receipt_contract.h"
#include "mosquitto_fixture.h"
#include "process_cpu.h"
#include "sample_envelope.h"
#include "temp_dir.h"

using namespace outpost;
using Steady = std::chrono::steady_clock;

namespace {

constexpr int kWellBehaved = 4;
constexpr int kFloodFactor = 10;  // the flooder: ten times the four together
constexpr int kWindow = 16;       // QoS 1 publishes in flight per client

struct Args {
    int rounds = 3;
    int seconds = 5;
    int rate = 10;  // alarms per second per well-behaved gateway
    int budget = 20;
    int instance_limit = 100;
};

struct Condition {
    const char* name;
    bool flooder;
    bool per_gateway_budget;
    bool instance_limit;
};

constexpr Condition kConditions[] = {
    {"quiet", false, true, false},
    {"flood_budget", true, true, false},
    {"flood_instance", true, false, true},
    {"flood_unlimited", true, false, false},
};

// Publish times by eventId, and the latencies of those a receipt named.
class Latencies final {
  public:
    void sent(const std::string& event_id) {
        std::lock_guard<std::mutex> lock(mutex_);
        sent_[event_id] = Steady::now();
    }
    void receipt(const std::string& payload) {
        const auto parsed = receipt::parse(payload);
        const auto* confirmed = std::get_if<receipt::Receipt>(&parsed);
        if (confirmed == nullptr) return;
        const auto now = Steady::now();
        std::lock_guard<std::mutex> lock(mutex_);
        for (const std::string& id : confirmed->event_ids) {
            const auto found = sent_.find(id);
            if (found == sent_.end()) continue;  // the flooder's, or a second receipt
            ms_.push_back(std::chrono::duration<double, std::milli>(now - found->second).count());
            sent_.erase(found);
        }
    }
    // Alarms published and not answered yet.
    std::size_t waiting() {
        std::lock_guard<std::mutex> lock(mutex_);
        return sent_.size();
    }
    std::vector<double> samples() {
        std::lock_guard<std::mutex> lock(mutex_);
        return ms_;
    }
    void forget_samples() {
        std::lock_guard<std::mutex> lock(mutex_);
        ms_.clear();
    }

  private:
    std::mutex mutex_;
    std::map<std::string, Steady::time_point> sent_;
    std::vector<double> ms_;
};

// One gateway's publishing side: real envelopes, seq per device, QoS 1 with
// at most kWindow in flight.
class GatewayClient final {
  public:
    GatewayClient(const std::string& uri, std::string gateway)
        : gateway_(std::move(gateway)),
          client_(bench::connected_client(uri, gateway_ + "-bench")) {}
    ~GatewayClient() {
        try {
            for (auto& token : in_flight_) token->wait();
            client_->disconnect()->wait();
        } catch (const mqtt::exception&) {
        }
    }
    // Publishes one alarm; returns its eventId.
    std::string publish() {
        const std::string device = "dev-" + std::to_string(count_ % 4);
        const std::string id = testing::new_event_id();
        const std::string payload =
            testing::sample_envelope_text(gateway_, device, ++seq_[device], id);
        if (in_flight_.size() >= kWindow) {
            in_flight_.front()->wait();
            in_flight_.pop_front();
        }
        in_flight_.push_back(
            client_->publish(testing::alarm_topic(gateway_, device), payload, 1, false));
        ++count_;
        return id;
    }

  private:
    const std::string gateway_;
    std::unique_ptr<mqtt::async_client> client_;
    std::map<std::string, std::int64_t> seq_;
    std::deque<mqtt::delivery_token_ptr> in_flight_;
    int count_ = 0;
};

nlohmann::json status_of(const std::string& path) {
    std::ifstream file(path);
    const std::string text((std::istreambuf_iterator<char>(file)),
                           std::istreambuf_iterator<char>());
    nlohmann::json parsed = nlohmann::json::parse(text, nullptr, false);
    return parsed.is_object() ? parsed : nlohmann::json::object();
}

nlohmann::json bridge_config(const Args& args, const Condition& condition, const std::string& uri,
                             const std::string& name_servers, const std::string& tag,
                             const std::string& status_file) {
    // Only this condition's gateways: a bridge stopped earlier keeps its
    // persistent session, and it must not collect this condition's alarms.
    nlohmann::json filters = nlohmann::json::array();
    for (int g = 0; g < kWellBehaved; ++g) {
        filters.push_back("outpost/gw-" + tag + "-" + std::to_string(g) + "/alarm/+");
    }
    filters.push_back("outpost/gw-" + tag + "-flood/alarm/+");
    nlohmann::json limits = nlohmann::json::object();
    if (condition.per_gateway_budget) limits["max_messages_per_s_per_gateway"] = args.budget;
    if (condition.instance_limit) limits["max_messages_per_s"] = args.instance_limit;
    return {
        {"mqtt",
         {{"uri", uri},
          {"client_id", "bridge-fair-" + tag},
          {"shared_group", "fair-" + tag},
          {"topic_filters", filters},
          {"retired_sessions", 0}}},
        {"rocketmq", {{"name_servers", name_servers}, {"producer_group", "outpost_fair_bench"}}},
        {"mapping", nlohmann::json::array({{{"mqtt_filter", "outpost/+/alarm/+"},
                                            {"rocketmq_topic", "bench_fairness"},
                                            {"tag", "${payload.severity}"}}})},
        {"quarantine_topic", "bench_fairness_quarantine"},
        {"limits", limits},
        {"receipts", {{"enabled", true}, {"flush_ms", 1}}},
        {"status", {{"file", status_file}, {"interval_ms", 100}, {"log_to_stderr", false}}}};
}

double round2(double value) {
    return std::round(value * 100) / 100;
}

// One condition: the bridge started, traffic for args.seconds, then waiting
// for the four's receipts. Returns its JSON line (without round figures).
nlohmann::json run_condition(const Args& args, const Condition& condition,
                             const testing::Mosquitto& broker, const std::string& name_servers,
                             const testing::TempDir& dir, const std::string& tag) {
    const std::string status_file = dir.file("status-" + tag + ".json");
    const std::string config_path = dir.file("bridge-" + tag + ".json");
    std::ofstream(config_path)
        << bridge_config(args, condition, broker.uri(), name_servers, tag, status_file).dump(2);
    const pid_t bridge = testing::spawn_logged({OUTPOST_BRIDGE_BINARY, "--config", config_path},
                                               dir.file("bridge-" + tag + ".log"));
    const auto connect_deadline = Steady::now() + std::chrono::seconds(30);
    while (!status_of(status_file).value("mqtt_connected", false) &&
           Steady::now() < connect_deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }

    Latencies latencies;
    auto listener = bench::connected_client(broker.uri(), "receipts-" + tag);
    listener->set_message_callback([&latencies](mqtt::const_message_ptr message) {
        latencies.receipt(message->get_payload_str());
    });
    listener->start_consuming();  // the bench's own listener: acknowledging on arrival is fine
    listener->subscribe("outpost/+/receipt", 1)->wait();

    std::vector<std::unique_ptr<GatewayClient>> good;
    for (int g = 0; g < kWellBehaved; ++g) {
        good.push_back(
            std::make_unique<GatewayClient>(broker.uri(), "gw-" + tag + "-" + std::to_string(g)));
    }
    // One alarm of each answered first: connections and routes are warm
    // before the measured window.
    for (auto& gateway : good) latencies.sent(gateway->publish());
    const auto warm_deadline = Steady::now() + std::chrono::seconds(60);
    while (latencies.waiting() > 0 && Steady::now() < warm_deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    latencies.forget_samples();
    std::this_thread::sleep_for(std::chrono::milliseconds(250));  // a status line after it
    const nlohmann::json before = status_of(status_file);
    const double cpu_before = bench::process_cpu_seconds(bridge);
    const auto started = Steady::now();
    const auto stop_at = started + std::chrono::seconds(args.seconds);

    std::thread flood;
    if (condition.flooder) {
        flood = std::thread([&] {
            GatewayClient flooder(broker.uri(), "gw-" + tag + "-flood");
            const int per_second = kFloodFactor * kWellBehaved * args.rate;
            const auto interval = std::chrono::duration<double>(1.0 / per_second);
            for (int i = 0;; ++i) {
                const auto due =
                    started + std::chrono::duration_cast<Steady::duration>(i * interval);
                if (due >= stop_at) break;
                std::this_thread::sleep_until(due);
                flooder.publish();
            }
        });
    }
    const auto interval = std::chrono::duration<double>(1.0 / args.rate);
    for (int i = 0;; ++i) {
        const auto due = started + std::chrono::duration_cast<Steady::duration>(i * interval);
        if (due >= stop_at) break;
        std::this_thread::sleep_until(due);
        for (auto& gateway : good) latencies.sent(gateway->publish());
    }
    if (flood.joinable()) flood.join();
    const auto answer_deadline = Steady::now() + std::chrono::seconds(120);
    while (latencies.waiting() > 0 && Steady::now() < answer_deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    const double window_s = std::chrono::duration<double>(Steady::now() - started).count();
    const double cpu_s = bench::process_cpu_seconds(bridge) - cpu_before;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));  // one more status line
    const nlohmann::json after = status_of(status_file);
    good.clear();
    listener->disconnect()->wait();
    testing::terminate_child(bridge, std::chrono::seconds(60));

    const auto delta = [&](const char* name) {
        return after.value(name, 0.0) - before.value(name, 0.0);
    };
    const std::vector<double> ms = latencies.samples();
    const double received = delta("received");
    const double sent = delta("forwarded") + after["quarantined"].value("total", 0.0) -
                        before["quarantined"].value("total", 0.0);
    return {{"condition", condition.name},
            {"samples", ms.size()},
            {"unanswered", latencies.waiting()},
            {"p50_ms", round2(bench::percentile(ms, 0.50))},
            {"p99_ms", round2(bench::percentile(ms, 0.99))},
            {"bridge_received", received},
            {"bridge_forwarded", delta("forwarded")},
            {"bridge_paced", delta("paced")},
            {"window_s", round2(window_s)},
            {"bridge_cpu_us_per_msg", std::round(cpu_s * 1e6 / std::max(1.0, received))},
            {"bridge_cpu_us_per_forwarded", std::round(cpu_s * 1e6 / std::max(1.0, sent))}};
}

}  // namespace

int main(int argc, char** argv) {
    Args args;
    if (!bench::parse_int_flags(argc, argv,
                                {{"--rounds", &args.rounds},
                                 {"--seconds", &args.seconds},
                                 {"--rate", &args.rate},
                                 {"--budget", &args.budget},
                                 {"--instance-limit", &args.instance_limit}})) {
        return 2;
    }
    if (!testing::mosquitto_available()) {
        std::fprintf(stderr, "mosquitto is not installed\n");
        return 77;
    }
    const char* env_path = std::getenv("OUTPOST_ROCKETMQ_ENV");
    std::map<std::string, std::string> env;
    std::ifstream env_file(env_path != nullptr ? env_path : "");
    for (std::string line; std::getline(env_file, line);) {
        const std::size_t at = line.find('=');
        if (at != std::string::npos) env[line.substr(0, at)] = line.substr(at + 1);
    }
    if (env["NAMESRV_ADDR"].empty()) {
        std::fprintf(stderr,
                     "gateway_fairness_bench: set OUTPOST_ROCKETMQ_ENV "
                     "(scripts/rocketmq.sh start DIR writes DIR/env)\n");
        return 77;
    }
    testing::Mosquitto broker;
    testing::TempDir dir;
    const std::string run = std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                                               std::chrono::system_clock::now().time_since_epoch())
                                               .count() %
                                           100000);
    // A first bridge creates the topics (auto-created on the first send).
    run_condition(Args{1, 1, 1, args.budget, args.instance_limit}, kConditions[0], broker,
                  env["NAMESRV_ADDR"], dir, "warm-" + run);

    std::map<std::string, std::map<std::string, std::vector<double>>> figures;
    for (int round = 0; round < args.rounds; ++round) {
        double quiet_p50 = 0, quiet_p99 = 0;
        for (const Condition& condition : kConditions) {
            const std::string tag =
                run + "-" + std::to_string(round) + "-" + std::string(condition.name).substr(0, 9);
            nlohmann::json line =
                run_condition(args, condition, broker, env["NAMESRV_ADDR"], dir, tag);
            const double p50 = line["p50_ms"], p99 = line["p99_ms"];
            if (std::string(condition.name) == "quiet") {
                quiet_p50 = p50;
                quiet_p99 = p99;
            }
            line["round"] = round;
            line["p50_ratio_to_quiet"] = round2(quiet_p50 > 0 ? p50 / quiet_p50 : 0);
            line["p99_ratio_to_quiet"] = round2(quiet_p99 > 0 ? p99 / quiet_p99 : 0);
            line["load_1m"] = bench::load_average_1m();
            std::printf("%s\n", line.dump().c_str());
            std::fflush(stdout);
            for (const char* key : {"p50_ms", "p99_ms", "p50_ratio_to_quiet", "p99_ratio_to_quiet",
                                    "bridge_cpu_us_per_msg", "bridge_cpu_us_per_forwarded",
                                    "bridge_paced", "unanswered"}) {
                figures[condition.name][key].push_back(line[key].get<double>());
            }
        }
    }
    for (const Condition& condition : kConditions) {
        nlohmann::json summary = {
            {"summary", condition.name},
            {"rounds", args.rounds},
            {"seconds", args.seconds},
            {"rate_per_gateway", args.rate},
            {"flooder_rate", condition.flooder ? kFloodFactor * kWellBehaved * args.rate : 0},
            {"budget_per_gateway", condition.per_gateway_budget ? args.budget : 0},
            {"instance_limit", condition.instance_limit ? args.instance_limit : 0}};
        for (const auto& [key, values] : figures[condition.name]) {
            summary["median_" + key] = round2(bench::median(values));
        }
        std::printf("%s\n", summary.dump().c_str());
    }
    return 0;
}
