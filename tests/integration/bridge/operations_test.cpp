// What an operator sees of a running bridge: the Prometheus endpoint whose
// figures move with the traffic (and that promtool accepts), and, under
// systemd, WATCHDOG=1 pings that keep coming while the bridge is idle and
// stop when forwarding hangs with a message in hand (a thread stalled at a
// fault point: real bridge, real mosquitto, real RocketMQ). Each case runs
// with one session and with two (two session processes under one bridge
// process that answers for both: session_processes.h).
#include <cstdio>

#include "bridge_harness.h"
#include "service_probes.h"

using namespace outpost::testing;

namespace {

// "outpost_bridge_x" or "outpost_bridge_x{label=\"v\"}" -> its value, 0 when absent.
double value_of(const std::string& exposition, const std::string& sample) {
    return metric_value(exposition, sample).value_or(-1);
}

// promtool's verdict on `exposition`, "" when it is clean or promtool is absent.
std::string promtool_problems(const TempDir& dir, const std::string& exposition) {
    if (find_program("promtool").empty()) return "";
    const std::string file = dir.file("scrape.prom");
    std::ofstream(file) << exposition;
    std::string output;
    FILE* pipe = popen(("promtool check metrics < " + file + " 2>&1").c_str(), "r");
    char buffer[4096];
    for (std::size_t got; (got = fread(buffer, 1, sizeof buffer, pipe)) > 0;) {
        output.append(buffer, got);
    }
    return pclose(pipe) == 0 ? "" : one_line(output);
}

}  // namespace

TEST_CASE("the metrics endpoint shows forwarded, duplicate and quarantined messages as they pass",
          "[bridge]") {
    const int sessions = GENERATE(1, 2);
    INFO("sessions: " << sessions);
    TempDir dir;
    Mosquitto broker;
    const std::string alarms = "it_bridge_ops_" + run_id();
    const std::string quarantine = "it_bridge_ops_q_" + run_id();
    const std::string client_id = "bridge-ops-" + run_id();
    create_rocketmq_topic(alarms, 4);
    const int port = free_loopback_port();
    nlohmann::json config =
        bridge_config(broker.uri(), client_id, alarms, quarantine, dir.file("status.json"));
    config["metrics"] = {{"listen", "127.0.0.1:" + std::to_string(port)}};
    config["mqtt"]["sessions"] = sessions;
    BridgeProcess bridge(dir, "bridge", config);
    bridge.start();

    const std::string before = http_get(port, "/metrics").body;
    CHECK(value_of(before, "outpost_bridge_forwarded_total") == 0);
    CHECK(value_of(before, "outpost_bridge_mqtt_connected{client_id=\"" + client_id + "\"}") == 1);
    if (sessions == 2) {
        CHECK(value_of(before,
                       "outpost_bridge_mqtt_connected{client_id=\"" + client_id + "-1\"}") == 1);
        CHECK(value_of(before, "outpost_bridge_session_process_restarts_total") == 0);
    }
    CHECK(promtool_problems(dir, before).empty());

    const std::vector<GatewayEvent> events = make_events(1, 2, 3);  // 6 events
    std::vector<GatewayPublisher::Outgoing> messages = outgoing(events);
    messages.push_back(events[0].outgoing());  // a gateway's resend: suppressed
    messages.push_back({alarm_topic("gw-0", "dev-0"), "{not json", std::nullopt});
    {
        GatewayPublisher gateway(broker.uri(), "gw-ops-" + run_id());
        REQUIRE_NOTHROW(gateway.publish_all(messages));
    }
    std::string after;
    const bool settled = wait_until(
        [&] {
            after = http_get(port, "/metrics").body;
            return value_of(after, "outpost_bridge_received_total") == messages.size() &&
                   value_of(after, "outpost_bridge_in_hand") == 0;
        },
        std::chrono::seconds(60));
    INFO("scrape: " << one_line(after) << " | bridge log: " << bridge.log());
    REQUIRE(settled);
    CHECK(value_of(after, "outpost_bridge_forwarded_total") == events.size());
    CHECK(value_of(after, "outpost_bridge_duplicates_suppressed_total") == 1);
    CHECK(value_of(after, "outpost_bridge_quarantined_total{reason=\"malformed_json\"}") == 1);
    CHECK(value_of(after, "outpost_bridge_send_latency_seconds_count") == events.size());
    CHECK(value_of(after, "outpost_bridge_send_latency_seconds_bucket{le=\"+Inf\"}") ==
          events.size());
    CHECK(value_of(after, "outpost_bridge_send_latency_seconds_sum") > 0);
    CHECK(value_of(after, "outpost_bridge_holding") == 0);
    CHECK(promtool_problems(dir, after).empty());
    // Only GET /metrics is served.
    CHECK(http_get(port, "/other").status == 404);
}

TEST_CASE("under systemd the watchdog is fed while idle and starved when forwarding hangs",
          "[bridge][fault_points]") {
    const int sessions = GENERATE(1, 2);
    INFO("sessions: " << sessions);
    TempDir dir;
    Mosquitto broker;
    const std::string alarms = "it_bridge_wd_" + run_id();
    const std::string quarantine = "it_bridge_wd_q_" + run_id();
    create_rocketmq_topic(alarms, 4);
    NotifyListener notify(dir.file("notify.sock"));
    nlohmann::json config = bridge_config(broker.uri(), "bridge-wd-" + run_id(), alarms, quarantine,
                                          dir.file("status.json"));
    config["mqtt"]["sessions"] = sessions;
    // One request per message, so the fault point's third hit is the third
    // message (batched, five messages may be one or two requests).
    config["batch"] = {{"max_messages", 1}};
    BridgeProcess bridge(dir, "bridge", config);
    // The third message's callback blocks for good before its send: a hung
    // forwarding thread with a message in hand. With two session processes
    // each counts its own messages: of five, one of them gets three or more,
    // and its stall starves the watchdog though the other one forwards.
    bridge.start({"NOTIFY_SOCKET=" + notify.path(), "WATCHDOG_USEC=1000000",
                  "OUTPOST_FAULT=bridge.before_send:3:stall"});

    std::vector<std::string> idle;
    const bool fed_while_idle = wait_until(
        [&] {
            for (std::string& message : notify.collect(std::chrono::milliseconds(0)))
                idle.push_back(std::move(message));
            return count_assignments(idle, "WATCHDOG=1") >= 3;
        },
        std::chrono::seconds(30));
    CHECK(count_assignments(idle, "READY=1") == 1);
    REQUIRE(fed_while_idle);

    {
        GatewayPublisher gateway(broker.uri(), "gw-wd-" + run_id());
        REQUIRE_NOTHROW(gateway.publish_all(outgoing(make_events(1, 1, 5))));
    }
    // Keep reading: a full notify socket would block the bridge's sends.
    const bool starved = wait_until(
        [&] {
            notify.collect(std::chrono::milliseconds(0));
            return bridge.logged("withholding WATCHDOG=1");
        },
        std::chrono::seconds(60));
    INFO("bridge log: " << bridge.log());
    REQUIRE(starved);
    if (sessions == 1) {
        CHECK(bridge.counter("forwarded") == 2);
    } else {
        CHECK(bridge.counter("forwarded") >= 2);
        CHECK(bridge.counter("forwarded") < 5);
    }
    notify.collect(std::chrono::milliseconds(0));  // what was sent before the verdict
    // Three watchdog periods (WatchdogSec/2 = 500 ms each) without a ping;
    // STATUS= lines still come, so the notifier itself is alive.
    const std::vector<std::string> after = notify.collect(std::chrono::milliseconds(1500));
    CHECK(count_assignments(after, "WATCHDOG=1") == 0);
    CHECK(!after.empty());
}
