// The bad-input corpus, published over MQTT, lands in the quarantine topic
// with its reason (TAGS and the OUTPOST_REASON property), is acknowledged so
// it does not loop, and the bridge keeps forwarding valid alarms.
#include "bridge/rocketmq/quarantine_message.h"
#include "bridge_harness.h"

using namespace outpost::testing;

namespace {

GatewayPublisher::Outgoing message_to(std::string topic, std::string payload) {
    return {std::move(topic), std::move(payload), std::nullopt};
}

}  // namespace

TEST_CASE("the bad-input corpus is quarantined with reasons and the bridge keeps running") {
    TempDir dir;
    Mosquitto broker;
    const std::string alarms = "it_bridge_quar_" + run_id();
    const std::string quarantine = "it_bridge_quar_q_" + run_id();
    create_rocketmq_topic(alarms, 4);
    create_rocketmq_topic(quarantine, 2);
    nlohmann::json config = bridge_config(broker.uri(), "bridge-quar-" + run_id(), alarms,
                                          quarantine, dir.file("status.json"));
    // The bridge's own size check, for brokers that ignore the Maximum Packet
    // Size it announces: announce MQTT's largest so the 10 MiB one arrives.
    config["mqtt"]["max_packet_size"] = 268435460;
    BridgeProcess bridge(dir, "bridge", config);
    bridge.start();

    const std::string topic = alarm_topic("gw-1", "dev-1");
    auto envelope = [](const std::string& gateway, std::int64_t seq) {
        return sample_envelope(gateway, "dev-1", seq, new_event_id());
    };
    const std::string valid = envelope("gw-1", 1).dump();
    nlohmann::json wrong_type = envelope("gw-1", 2);
    wrong_type["seq"] = "2";
    nlohmann::json deep = envelope("gw-1", 3);
    nlohmann::json* node = &deep["payload"];
    for (int i = 0; i < 40; ++i) node = &((*node)["nested"] = nlohmann::json::object());
    std::string invalid_utf8 = envelope("gw-1", 4).dump();
    invalid_utf8.replace(invalid_utf8.find("overheat"), 2, "\xc3\x28");
    // Hostile envelopes. eventId three times: the bridge must not forward it
    // under any of the three (KEYS from one, a first-wins consumer reading another).
    const std::string repeated_ids[] = {new_event_id(), new_event_id()};
    const std::string last_id_text = sample_envelope_text("gw-1", "dev-1", 8, new_event_id());
    const std::string repeated_key = "{\"eventId\":\"" + repeated_ids[0] + "\",\"eventId\":\"" +
                                     repeated_ids[1] + "\"," + last_id_text.substr(1);
    nlohmann::json nul_in_type = envelope("gw-1", 9);
    nul_in_type["payload"]["alarmType"] = std::string("over\0heat", 9);
    std::string huge_seq = sample_envelope_text("gw-1", "dev-1", 10, new_event_id());
    huge_seq.replace(huge_seq.find("\"seq\":10") + 6, 2, "1e+308");
    const std::string bom =
        "\xEF\xBB\xBF" + sample_envelope_text("gw-1", "dev-1", 11, new_event_id());

    struct Bad {
        GatewayPublisher::Outgoing message;
        std::string reason;
    };
    const std::vector<Bad> corpus = {
        {message_to(topic, valid.substr(0, valid.size() / 2)), "malformed_json"},
        {message_to(topic, wrong_type.dump()), "schema_violation"},
        {message_to(topic, "{\"x\":\"" + std::string(10 * 1024 * 1024, 'a') + "\"}"),
         "payload_too_large"},
        {message_to(topic, envelope("gw-2", 5).dump()), "gateway_mismatch"},
        {message_to(topic, invalid_utf8), "invalid_utf8"},
        {message_to(topic, deep.dump()), "json_too_deep"},
        {message_to(topic, repeated_key), "malformed_json"},
        {message_to(topic, nul_in_type.dump()), "schema_violation"},
        {message_to(topic, huge_seq), "schema_violation"},
        {message_to(topic, bom), "malformed_json"},
    };
    std::map<std::string, unsigned> per_reason;
    for (const Bad& bad : corpus) ++per_reason[bad.reason];
    std::vector<GatewayPublisher::Outgoing> messages;
    for (const Bad& bad : corpus) messages.push_back(bad.message);
    messages.push_back(message_to(topic, valid));  // after all that, still forwarded
    {
        GatewayPublisher gateway(broker.uri(), "gw-quar-" + run_id());
        REQUIRE_NOTHROW(gateway.publish_all(messages));
    }
    {
        const bool done = wait_until(
            [&] {
                return bridge.counter("forwarded") == 1 &&
                       bridge.status()["quarantined"].value("total", 0u) == corpus.size();
            },
            std::chrono::seconds(60));
        INFO("status: " << bridge.status().dump() << " | bridge log: " << bridge.log());
        REQUIRE(done);
    }
    CHECK(bridge.running());
    const nlohmann::json status = bridge.status();
    for (const auto& [reason, count] : per_reason) {
        INFO("reason " << reason);
        CHECK(status["quarantined"].value(reason, 0u) == count);
    }

    // From outside: each one is in the quarantine topic under its key, with its reason.
    std::set<std::string> keys;
    for (const Bad& bad : corpus) {
        keys.insert(outpost::bridge::quarantine_key(bad.message.topic, bad.message.payload));
    }
    const std::vector<StoredMessage> stored = messages_with_keys(quarantine, keys);
    CHECK(stored.size() == corpus.size());
    for (const Bad& bad : corpus) {
        const std::string key =
            outpost::bridge::quarantine_key(bad.message.topic, bad.message.payload);
        INFO("expected " << bad.reason << " under " << key);
        auto found = std::find_if(stored.begin(), stored.end(), [&](const StoredMessage& message) {
            return message.keys.find(key) != std::string::npos;
        });
        REQUIRE(found != stored.end());
        CHECK(found->tags == bad.reason);
        CHECK(found->reason == bad.reason);
    }
    const std::string valid_id = nlohmann::json::parse(valid)["eventId"];
    const std::vector<StoredMessage> forwarded = messages_with_keys(alarms, {valid_id});
    CHECK(missing_keys(forwarded, {valid_id}).empty());
    // Nothing of the repeated-key envelope reached the alarm topic, under any of its ids.
    const std::string last_id = nlohmann::json::parse(last_id_text)["eventId"];
    CHECK(missing_keys(forwarded, {repeated_ids[0], repeated_ids[1], last_id}).size() == 3);
    CHECK(forwarded.size() == 1);
}
