// RocketMQ's broker stops while alarms flow: the bridge holds the message in
// hand unacknowledged (mosquitto records no PUBACK from it during the
// outage), survives even a SIGKILL in that state, and once the broker is back
// every event is in RocketMQ. Uses stop-broker/start-broker on the runner's
// shared RocketMQ, so this test runs alone (is_parallel: false).
#include "bridge_harness.h"

using namespace outpost::testing;

TEST_CASE("RocketMQ stopped and restarted mid-stream: nothing lost, no ack before SEND_OK") {
    TempDir dir;
    Mosquitto broker;
    const std::string alarms = "it_bridge_outage_" + run_id();
    const std::string quarantine = "it_bridge_outage_q_" + run_id();
    const std::string client_id = "bridge-outage-" + run_id();
    create_rocketmq_topic(alarms, 4);
    create_rocketmq_topic(quarantine, 1);
    BridgeProcess bridge(
        dir, "bridge",
        bridge_config(broker.uri(), client_id, alarms, quarantine, dir.file("status.json")));
    bridge.start();
    const std::vector<GatewayEvent> before = make_events(1, 4, 10);
    const std::vector<GatewayEvent> during = make_events(1, 4, 10);
    const std::vector<GatewayEvent> after = make_events(1, 4, 10);
    GatewayPublisher gateway(broker.uri(), "gw-outage-" + run_id());

    gateway.publish_all(outgoing(before));
    REQUIRE(wait_until([&] { return pubacks_from(broker, client_id) >= before.size(); },
                       std::chrono::seconds(60)));

    const std::string stopped = rocketmq_script("stop-broker " + rocketmq_env()["ROCKETMQ_DIR"]);
    INFO("stop-broker: " << one_line(stopped));
    // The broker is shared by every later test: a failed REQUIRE below must
    // not leave it stopped (start-broker is a no-op if it runs already).
    struct RestartBroker {
        ~RestartBroker() { rocketmq_script("start-broker " + rocketmq_env()["ROCKETMQ_DIR"], true); }
    } restart_broker_at_exit;
    gateway.publish_all(outgoing(during));  // mosquitto takes them; the bridge cannot forward
    {
        const bool holding = wait_until([&] { return bridge.status().value("holding", false); },
                                        std::chrono::seconds(60));
        INFO("status: " << bridge.status().dump() << " | bridge log: " << bridge.log());
        REQUIRE(holding);
    }
    CHECK(pubacks_from(broker, client_id) == before.size());
    CHECK(bridge.status()["rocketmq_errors"]["total"].get<int>() > 0);

    // Kill it while it holds a message: had anything been acknowledged
    // without SEND_OK, it would now be lost for good.
    bridge.kill9();
    bridge.start();
    {
        const bool holding = wait_until([&] { return bridge.status().value("holding", false); },
                                        std::chrono::seconds(60));
        INFO("status: " << bridge.status().dump() << " | bridge log: " << bridge.log());
        REQUIRE(holding);
    }
    CHECK(pubacks_from(broker, client_id) == before.size());

    const std::string started = rocketmq_script("start-broker " + rocketmq_env()["ROCKETMQ_DIR"]);
    INFO("start-broker: " << one_line(started));
    gateway.publish_all(outgoing(after));
    const std::size_t total = before.size() + during.size() + after.size();
    {
        const bool all_acked =
            wait_until([&] { return pubacks_from(broker, client_id) >= total; },
                       std::chrono::seconds(180), std::chrono::milliseconds(250));
        INFO("status: " << bridge.status().dump() << " | bridge log: " << bridge.log());
        REQUIRE(all_acked);
    }
    CHECK(bridge.status()["quarantined"]["total"] == 0);

    std::set<std::string> ids = ids_of(before);
    for (const auto* part : {&during, &after}) {
        const std::set<std::string> more = ids_of(*part);
        ids.insert(more.begin(), more.end());
    }
    const std::vector<StoredMessage> stored = messages_with_keys(alarms, ids);
    const std::vector<std::string> missing = missing_keys(stored, ids);
    INFO("missing " << missing.size() << " of " << ids.size());
    CHECK(missing.empty());
    std::printf("# outage: %zu events, %zu stored, held up to %lld ms, %d MQTT connects\n", total,
                stored.size(), bridge.status().value("held_ms_max", 0ll),
                bridge.status().value("mqtt_connects", 0));
}
