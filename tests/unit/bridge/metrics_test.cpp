// What a Prometheus scrape of outpost-bridge reads, from BridgeStats with
// known events: the counters, one series per quarantine reason and per
// MQTT session, retired sessions by state, and a histogram whose buckets
// agree with what was recorded.
#include "bridge/ops/metrics.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "bridge/ops/bridge_stats.h"

using namespace outpost::bridge;
using std::chrono::microseconds;

namespace {

// sample name with labels -> value
std::map<std::string, double> samples_of(const std::string& text) {
    std::map<std::string, double> samples;
    std::stringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        if (line.empty() || line[0] == '#') continue;
        const size_t space = line.rfind(' ');
        samples[line.substr(0, space)] = std::stod(line.substr(space + 1));
    }
    return samples;
}

}  // namespace

TEST_CASE("the scrape carries the bridge's counters, by reason, code and session", "[bridge]") {
    BridgeStats stats;
    stats.mqtt_connected("bridge-a", true);
    stats.mqtt_connected("bridge-b", true);
    stats.mqtt_connected("bridge-b", false);
    for (int i = 0; i < 3; ++i) {
        stats.message_received(i == 0);
        stats.message_forwarded(microseconds(1500), microseconds(1500), microseconds(0));
    }
    stats.message_received(false);
    stats.duplicate_suppressed();
    stats.message_received(false);
    stats.message_paced();
    stats.message_received(false);
    stats.message_quarantined(QuarantineReason::kSchemaViolation);
    stats.rocketmq_error(outpost::StatusCode::kUnavailable, std::nullopt);
    stats.rocketmq_error(outpost::StatusCode::kUnavailable, std::nullopt);
    stats.rocketmq_error(outpost::StatusCode::kPermissionDenied, 16);
    stats.rocketmq_error(outpost::StatusCode::kUnavailable, 4242);  // unknown codes fold
    stats.rocketmq_error(outpost::StatusCode::kUnavailable, 4343);
    stats.holding(true, std::chrono::milliseconds(2500));
    stats.message_received(false);  // held: in hand

    const auto samples = samples_of(render_bridge_metrics(stats.figures()));
    CHECK(samples.at("outpost_bridge_received_total") == 7);
    CHECK(samples.at("outpost_bridge_redelivered_total") == 1);
    CHECK(samples.at("outpost_bridge_forwarded_total") == 3);
    CHECK(samples.at("outpost_bridge_duplicates_suppressed_total") == 1);
    CHECK(samples.at("outpost_bridge_gateway_paced_total") == 1);
    CHECK(samples.at("outpost_bridge_quarantined_total{reason=\"schema_violation\"}") == 1);
    CHECK(samples.at("outpost_bridge_quarantined_total{reason=\"malformed_json\"}") == 0);
    const std::string errors = "outpost_bridge_rocketmq_errors_total";
    CHECK(samples.at(errors + "{code=\"none\",name=\"unavailable\"}") == 2);
    CHECK(samples.at(errors + "{code=\"16\",name=\"NO_PERMISSION\"}") == 1);
    CHECK(samples.at(errors + "{code=\"other\",name=\"UNKNOWN_CODE\"}") == 2);
    CHECK(samples.at("outpost_bridge_mqtt_connected{client_id=\"bridge-a\"}") == 1);
    CHECK(samples.at("outpost_bridge_mqtt_connected{client_id=\"bridge-b\"}") == 0);
    CHECK(samples.at("outpost_bridge_mqtt_connects_total") == 2);
    CHECK(samples.at("outpost_bridge_holding") == 1);
    CHECK(samples.at("outpost_bridge_held_longest_seconds") == 2.5);
    CHECK(samples.at("outpost_bridge_in_hand") == 1);
}

TEST_CASE("the send and wait latency histograms are cumulative and place each sample in its bucket",
          "[bridge]") {
    BridgeStats stats;
    for (const int us : {100, 300, 300, 1000, 5000, 20000000}) {
        stats.message_received(false);
        stats.message_forwarded(microseconds(us), microseconds(us + 2000), microseconds(2000));
    }
    const auto samples = samples_of(render_bridge_metrics(stats.figures()));
    const std::string bucket = "outpost_bridge_send_latency_seconds_bucket";
    CHECK(samples.at(bucket + "{le=\"0.000128\"}") == 1);  // 100 us
    CHECK(samples.at(bucket + "{le=\"0.000256\"}") == 1);
    CHECK(samples.at(bucket + "{le=\"0.000512\"}") == 3);  // + 2 x 300 us
    CHECK(samples.at(bucket + "{le=\"0.001024\"}") == 4);  // + 1 ms
    CHECK(samples.at(bucket + "{le=\"0.008192\"}") == 5);  // + 5 ms
    CHECK(samples.at(bucket + "{le=\"8.388608\"}") == 5);  // 20 s is beyond the last bound
    CHECK(samples.at(bucket + "{le=\"+Inf\"}") == 6);
    CHECK(samples.at("outpost_bridge_send_latency_seconds_count") == 6);
    CHECK(samples.at("outpost_bridge_send_latency_seconds_sum") == Approx(20.0067));
    // The wait before each send is a histogram of its own: 2 ms each here.
    const std::string wait = "outpost_bridge_wait_latency_seconds_bucket";
    CHECK(samples.at(wait + "{le=\"0.001024\"}") == 0);
    CHECK(samples.at(wait + "{le=\"0.002048\"}") == 6);
    CHECK(samples.at("outpost_bridge_wait_latency_seconds_count") == 6);
    CHECK(samples.at("outpost_bridge_wait_latency_seconds_sum") == Approx(0.012));
    double previous = 0;
    std::stringstream text(render_bridge_metrics(stats.figures()));
    for (std::string line; std::getline(text, line);) {
        if (line.rfind(bucket, 0) != 0) continue;
        const double value = std::stod(line.substr(line.rfind(' ') + 1));
        INFO(line);
        CHECK(value >= previous);  // in the order written, never decreasing
        previous = value;
    }
}

TEST_CASE("retired sessions are counted by state in the scrape and named in the status line",
          "[bridge]") {
    BridgeStats stats;
    const auto before = samples_of(render_bridge_metrics(stats.figures()));
    CHECK(before.count("outpost_bridge_retired_sessions{state=\"ended\"}") == 0);
    CHECK(stats.to_json_line().find("retired_sessions") == std::string::npos);

    for (const char* id : {"bridge-2", "bridge-3", "bridge-4", "bridge-5"}) {
        stats.retired_session(id, RetiredState::kWaiting);
    }
    stats.retired_session("bridge-2", RetiredState::kDraining);
    stats.retired_session("bridge-2", RetiredState::kEnded);
    stats.retired_session("bridge-3", RetiredState::kEnded);
    stats.retired_session("bridge-4", RetiredState::kDraining);

    const auto samples = samples_of(render_bridge_metrics(stats.figures()));
    CHECK(samples.at("outpost_bridge_retired_sessions{state=\"waiting\"}") == 1);
    CHECK(samples.at("outpost_bridge_retired_sessions{state=\"draining\"}") == 1);
    CHECK(samples.at("outpost_bridge_retired_sessions{state=\"drained\"}") == 0);
    CHECK(samples.at("outpost_bridge_retired_sessions{state=\"ended\"}") == 2);
    const nlohmann::json line = nlohmann::json::parse(stats.to_json_line());
    CHECK(line.at("retired_sessions") == nlohmann::json{{"bridge-2", "ended"},
                                                        {"bridge-3", "ended"},
                                                        {"bridge-4", "draining"},
                                                        {"bridge-5", "waiting"}});
}

TEST_CASE("a client id with quotes or backslashes is escaped in its label", "[bridge]") {
    BridgeStats stats;
    stats.mqtt_connected("odd\"id\\x", true);
    const std::string text = render_bridge_metrics(stats.figures());
    CHECK(text.find("outpost_bridge_mqtt_connected{client_id=\"odd\\\"id\\\\x\"} 1") !=
          std::string::npos);
}

TEST_CASE(
    "each surveyed broker's durability is 1, 0 or -1 in the scrape and named in the status line",
    "[bridge]") {
    BridgeFigures figures = BridgeStats().figures();
    CHECK(render_bridge_metrics(figures).find("outpost_bridge_rocketmq_broker_durable") ==
          std::string::npos);  // not surveyed yet: no family
    CHECK(nlohmann::json::parse(figures_json_line(figures)).count("rocketmq_brokers") == 0);

    using namespace outpost::rocketmq;
    const auto report = [](const char* name, const char* flush) {
        BrokerSettings settings{{"flushDiskType", flush}, {"brokerRole", "ASYNC_MASTER"}};
        return BrokerReport{name, "10.0.0.1:10911", judge_broker_durability(settings)};
    };
    figures.rocketmq_brokers = {
        report("broker-a", "SYNC_FLUSH"), report("broker-b", "ASYNC_FLUSH"),
        BrokerReport{"broker-c", "10.0.0.3:10911",
                     unknown_durability(outpost::Status::error(outpost::StatusCode::kRejected,
                                                               "refused"))}};
    const std::map<std::string, double> samples = samples_of(render_bridge_metrics(figures));
    CHECK(samples.at("outpost_bridge_rocketmq_broker_durable{broker=\"broker-a\"}") == 1);
    CHECK(samples.at("outpost_bridge_rocketmq_broker_durable{broker=\"broker-b\"}") == 0);
    CHECK(samples.at("outpost_bridge_rocketmq_broker_durable{broker=\"broker-c\"}") == -1);

    const nlohmann::json brokers =
        nlohmann::json::parse(figures_json_line(figures)).at("rocketmq_brokers");
    CHECK(brokers.at("broker-a").at("durable") == "durable");
    CHECK(brokers.at("broker-b").at("durable") == "not_durable");
    CHECK(brokers.at("broker-b").at("flushDiskType") == "ASYNC_FLUSH");
    CHECK(brokers.at("broker-c").at("durable") == "unknown");
    CHECK(brokers.at("broker-c").at("reason").get<std::string>().find("refused") !=
          std::string::npos);
    CHECK(brokers.at("broker-a").at("address") == "10.0.0.1:10911");
}
