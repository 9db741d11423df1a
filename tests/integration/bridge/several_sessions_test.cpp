// One bridge with four MQTT sessions in its shared group (mqtt.sessions)
// and at most two RocketMQ requests in flight: every event is stored in
// RocketMQ exactly once, each session acknowledges a share of them, and
// mosquitto records exactly one PUBACK per published message.
#include <map>

#include "bridge_harness.h"

using namespace outpost::testing;

TEST_CASE("several sessions forward every message exactly once and acknowledge each") {
    constexpr int kSessions = 4;
    TempDir dir;
    Mosquitto broker;
    const std::string alarms = "it_bridge_sessions_" + run_id();
    const std::string quarantine = "it_bridge_sessions_q_" + run_id();
    create_rocketmq_topic(alarms, 4);
    const std::string base_id = "bridge-sessions-" + run_id();
    nlohmann::json config =
        bridge_config(broker.uri(), base_id, alarms, quarantine, dir.file("status.json"));
    config["mqtt"]["sessions"] = kSessions;
    config["rocketmq"]["max_in_flight"] = 2;  // fewer than sessions: some wait for a slot
    BridgeProcess bridge(dir, "bridge", config);
    bridge.start();

    const std::vector<GatewayEvent> events = make_events(2, 10, 10);  // 200 events
    {
        GatewayPublisher gateway(broker.uri(), "gw-sessions-" + run_id());
        REQUIRE_NOTHROW(gateway.publish_all(outgoing(events)));
    }
    // Session 0 keeps the configured id; session i uses id-i.
    const std::vector<std::string> ids = {base_id, base_id + "-1", base_id + "-2", base_id + "-3"};
    const auto acked = [&] { return pubacks_from_sessions(broker, base_id, kSessions); };
    {
        const bool all_acked = wait_until([&] { return acked() >= events.size(); },
                                          std::chrono::seconds(90), std::chrono::milliseconds(250));
        INFO("status: " << bridge.status().dump() << " | bridge log: " << bridge.log());
        REQUIRE(all_acked);
    }
    CHECK(acked() == events.size());
    for (const std::string& id : ids) {
        INFO("session " << id);
        CHECK(pubacks_from(broker, id) > 0);
    }
    wait_until([&] { return bridge.counter("forwarded") >= events.size(); },
               std::chrono::seconds(10));
    CHECK(bridge.counter("forwarded") == events.size());
    CHECK(bridge.counter("duplicates_suppressed") == 0);

    const std::set<std::string> wanted = ids_of(events);
    const std::vector<StoredMessage> stored = messages_with_keys(alarms, wanted);
    CHECK(missing_keys(stored, wanted).empty());
    std::map<std::string, int> copies;
    for (const StoredMessage& message : stored) ++copies[message.keys];
    for (const auto& [key, count] : copies) {
        INFO("KEYS " << key);
        CHECK(count == 1);
    }
    CHECK(stored.size() == events.size());
    std::printf("# sessions: %zu events, %zu stored, PUBACKs per session %zu/%zu/%zu/%zu\n",
                events.size(), stored.size(), pubacks_from(broker, ids[0]),
                pubacks_from(broker, ids[1]), pubacks_from(broker, ids[2]),
                pubacks_from(broker, ids[3]));
}
