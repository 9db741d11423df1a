// The bridge announces a Maximum Packet Size in CONNECT, so the broker never
// hands it a publish larger than it accepts: a gateway's oversized publish is
// dropped for the bridge at the broker (never received, copied or
// quarantined) and the alarms around it are forwarded.
#include "bridge_harness.h"

using namespace outpost::testing;

TEST_CASE("a publish above the bridge's Maximum Packet Size never reaches it; the rest forwards") {
    TempDir dir;
    Mosquitto broker;  // no packet limit of its own: only the bridge's applies
    const std::string alarms = "it_bridge_mps_" + run_id();
    create_rocketmq_topic(alarms, 2);
    nlohmann::json config = bridge_config(broker.uri(), "bridge-mps-" + run_id(), alarms,
                                          alarms + "_q", dir.file("status.json"));
    config["limits"] = {{"max_payload_bytes", 32768}};  // announces 32 KiB + 16 KiB
    BridgeProcess bridge(dir, "bridge", config);
    bridge.start();

    const std::string topic = alarm_topic("gw-1", "dev-1");
    const std::string before = new_event_id();
    const std::string after = new_event_id();
    GatewayPublisher gateway(broker.uri(), "outpost-gw-1-mps-" + run_id());
    gateway.publish_all({
        {topic, sample_envelope("gw-1", "dev-1", 1, before).dump(), std::nullopt},
        // 8 MiB: PUBACKed by the broker, which then drops it for the bridge.
        {topic, "{\"x\":\"" + std::string(8 * 1024 * 1024, 'a') + "\"}", std::nullopt},
        {topic, sample_envelope("gw-1", "dev-1", 2, after).dump(), std::nullopt},
    });
    const bool forwarded =
        wait_until([&] { return bridge.counter("forwarded") >= 2; }, std::chrono::seconds(60));
    INFO("status: " << bridge.status().dump() << " | bridge log: " << bridge.log());
    REQUIRE(forwarded);
    CHECK(bridge.counter("received") == 2);  // the 8 MiB one never arrived
    CHECK(bridge.status()["quarantined"]["total"] == 0);
    CHECK(bridge.status()["mqtt_connected"] == true);
    const std::set<std::string> ids = {before, after};
    CHECK(missing_keys(messages_with_keys(alarms, ids), ids).empty());
}
