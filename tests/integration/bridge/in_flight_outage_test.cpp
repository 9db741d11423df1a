// RocketMQ's broker stops while a bridge with four sessions has several
// sends in flight on its one broker connection: the connection failure fails
// every outstanding send, so no session acknowledges a message that did not
// get SEND_OK, and once the broker is back every event is in RocketMQ. (A
// message acknowledged without SEND_OK would never be delivered again: it
// would be missing.) Uses stop-broker/start-broker on the runner's shared
// RocketMQ, so this test runs alone (is_parallel: false).
#include <exception>
#include <thread>

#include "bridge_harness.h"

using namespace outpost::testing;

TEST_CASE("a RocketMQ connection dropped with sends in flight acknowledges nothing unsent") {
    constexpr int kSessions = 4;
    TempDir dir;
    Mosquitto broker;
    const std::string alarms = "it_bridge_inflight_" + run_id();
    const std::string quarantine = "it_bridge_inflight_q_" + run_id();
    create_rocketmq_topic(alarms, 4);
    create_rocketmq_topic(quarantine, 1);
    const std::string base_id = "bridge-inflight-" + run_id();
    nlohmann::json config =
        bridge_config(broker.uri(), base_id, alarms, quarantine, dir.file("status.json"));
    config["mqtt"]["sessions"] = kSessions;
    config["rocketmq"]["max_in_flight"] = kSessions;
    BridgeProcess bridge(dir, "bridge", config);
    bridge.start();
    const auto acked = [&] { return pubacks_from_sessions(broker, base_id, kSessions); };

    // A stream long enough that the broker stops in the middle of it.
    const std::vector<GatewayEvent> events = make_events(2, 20, 25);  // 1,000 events
    BackgroundGateway gateway(broker.uri(), "gw-inflight-" + run_id(), outgoing(events));
    const bool flowing = wait_until([&] { return acked() >= 50; }, std::chrono::seconds(60),
                                    std::chrono::milliseconds(20));
    const std::string stopped = rocketmq_script("stop-broker " + rocketmq_env()["ROCKETMQ_DIR"]);
    INFO("stop-broker: " << one_line(stopped));
    struct RestartBroker {
        ~RestartBroker() {
            rocketmq_script("start-broker " + rocketmq_env()["ROCKETMQ_DIR"], true);
        }
    } restart_broker_at_exit;
    // mosquitto takes the rest; the bridge cannot forward them
    REQUIRE(gateway.join().empty());
    REQUIRE(flowing);
    {
        const bool failing =
            wait_until([&] { return bridge.status()["rocketmq_errors"].value("total", 0) > 0; },
                       std::chrono::seconds(60));
        INFO("status: " << bridge.status().dump() << " | bridge log: " << bridge.log());
        REQUIRE(failing);
    }
    const std::size_t acked_during_outage = acked();
    CHECK(acked_during_outage < events.size());

    const std::string started = rocketmq_script("start-broker " + rocketmq_env()["ROCKETMQ_DIR"]);
    INFO("start-broker: " << one_line(started));
    {
        const bool all_acked =
            wait_until([&] { return acked() >= events.size(); }, std::chrono::seconds(180),
                       std::chrono::milliseconds(250));
        INFO("status: " << bridge.status().dump() << " | bridge log: " << bridge.log());
        REQUIRE(all_acked);
    }
    CHECK(bridge.status()["quarantined"]["total"] == 0);
    const std::set<std::string> wanted = ids_of(events);
    const std::vector<StoredMessage> stored = messages_with_keys(alarms, wanted);
    const std::vector<std::string> missing = missing_keys(stored, wanted);
    INFO("missing " << missing.size() << " of " << wanted.size());
    CHECK(missing.empty());
    std::printf(
        "# in-flight outage: %zu events, %zu acked before the broker returned, %zu stored, "
        "RocketMQ errors %d\n",
        events.size(), acked_during_outage, stored.size(),
        bridge.status()["rocketmq_errors"].value("total", 0));
}
