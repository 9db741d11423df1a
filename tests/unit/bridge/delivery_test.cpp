// The per-message pipeline against a scripted sink: what is sent where, and
// that a verdict which lets the caller acknowledge comes only after SEND_OK.
#include "bridge/delivery.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "bridge/rocketmq/quarantine_message.h"
#include "delivery_fixtures.h"
#include "sample_envelope.h"

using namespace outpost::bridge;
using outpost::Status;
using outpost::StatusCode;
using outpost::testing::alarm_topic;
using outpost::testing::new_event_id;
using outpost::testing::sample_envelope_text;

TEST_CASE("a valid alarm is sent with KEYS = eventId, the rule's topic and tag, by device") {
    Harness h;
    const std::string id = new_event_id();
    const InboundMessage message = alarm("gw-1", "dev-7", 3, id);
    CHECK(h.delivery->deliver(message) == Verdict::kForwarded);
    REQUIRE(h.sink.sent.size() == 1);
    const SinkMessage& sent = h.sink.sent[0];
    CHECK(sent.topic == "outpost_alarms");
    CHECK(sent.tags == "major");
    CHECK(sent.keys == id);
    CHECK(sent.sharding_key == "dev-7");
    CHECK(sent.body == message.payload);  // the gateway's bytes, verbatim
    CHECK(sent.properties.empty());
    CHECK(h.stats.forwarded() == 1);
}

TEST_CASE("the first matching mapping rule wins") {
    BridgeConfig config = test_config();
    config.identity.device_level = -1;
    config.mapping.insert(config.mapping.begin(),
                          MappingRule{"outpost/gw-vip/#", "vip_alarms", "vip"});
    Harness h(config);
    CHECK(h.delivery->deliver(alarm("gw-vip", "d", 1, new_event_id())) == Verdict::kForwarded);
    CHECK(h.delivery->deliver(alarm("gw-1", "d", 1, new_event_id())) == Verdict::kForwarded);
    REQUIRE(h.sink.sent.size() == 2);
    CHECK(h.sink.sent[0].topic == "vip_alarms");
    CHECK(h.sink.sent[0].tags == "vip");
    CHECK(h.sink.sent[1].topic == "outpost_alarms");
}

TEST_CASE("while RocketMQ fails the message is held and resent; the verdict follows SEND_OK") {
    Harness h;
    h.sink.script = {unavailable(), Status::error(StatusCode::kTimeout, "slow"), unavailable()};
    CHECK(h.delivery->deliver(alarm("gw-1", "dev-1", 1, new_event_id())) == Verdict::kForwarded);
    CHECK(h.sink.sent.size() == 4);  // three failures, then SEND_OK
    const std::string line = h.stats.to_json_line();
    CHECK(line.find(R"("rocketmq_errors":{"none:timeout":1,"none:unavailable":2,"total":3})") !=
          std::string::npos);
    CHECK(line.find(R"("holding":false)") != std::string::npos);
}

TEST_CASE("failed sends are counted by the response code RocketMQ answered, no answer apart") {
    Harness h;
    h.sink.script = {Status::error(StatusCode::kUnavailable, "SYSTEM_BUSY"),
                     Status::error(StatusCode::kUnavailable, "an unknown code"),
                     Status::error(StatusCode::kTimeout, "no answer"),
                     Status::error(StatusCode::kUnavailable, "SYSTEM_BUSY")};
    h.sink.codes = {2, 4242, std::nullopt, 2};
    CHECK(h.delivery->deliver(alarm("gw-1", "dev-1", 1, new_event_id())) == Verdict::kForwarded);
    const std::string line = h.stats.to_json_line();
    INFO(line);
    CHECK(line.find(R"("rocketmq_errors":{"2:SYSTEM_BUSY":2,"none:timeout":1,)"
                    R"("other:UNKNOWN_CODE":1,"total":4})") != std::string::npos);
}

TEST_CASE("stored without the durability SEND_OK promises is resent, not acknowledged") {
    Harness h;
    h.sink.script = {Status::error(StatusCode::kOutcomeUnknown, "FLUSH_DISK_TIMEOUT")};
    CHECK(h.delivery->deliver(alarm("gw-1", "dev-1", 1, new_event_id())) == Verdict::kForwarded);
    CHECK(h.sink.sent.size() == 2);
}

TEST_CASE("a stop requested while RocketMQ fails yields kStopped: do not acknowledge") {
    Harness h;
    for (int i = 0; i < 100; ++i) h.sink.script.push_back(unavailable());
    h.sink.on_send = [&h](std::size_t sends) {
        if (sends == 2) h.stop.request_stop();
    };
    CHECK(h.delivery->deliver(alarm("gw-1", "dev-1", 1, new_event_id())) == Verdict::kStopped);
    CHECK(h.sink.sent.size() == 2);
    CHECK(h.stats.forwarded() == 0);
}

TEST_CASE("an eventId forwarded before is acknowledged without a second send") {
    Harness h;
    const std::string id = new_event_id();
    CHECK(h.delivery->deliver(alarm("gw-1", "dev-1", 1, id)) == Verdict::kForwarded);
    InboundMessage again = alarm("gw-1", "dev-1", 1, id);
    again.redelivered = true;
    CHECK(h.delivery->deliver(again) == Verdict::kDuplicate);
    CHECK(h.sink.sent.size() == 1);
    const std::string line = h.stats.to_json_line();
    CHECK(line.find(R"("duplicates_suppressed":1)") != std::string::npos);
    CHECK(line.find(R"("redelivered":1)") != std::string::npos);
    CHECK(line.find(R"("received":2)") != std::string::npos);
}

TEST_CASE("a gateway reusing another gateway's eventId does not suppress that gateway's alarm") {
    Harness h;
    const std::string id = new_event_id();
    // The attacker publishes first, under its own topic (the ACL allows that).
    CHECK(h.delivery->deliver(alarm("gw-evil", "dev-1", 1, id)) == Verdict::kForwarded);
    CHECK(h.delivery->deliver(alarm("gw-1", "dev-1", 1, id)) == Verdict::kForwarded);
    REQUIRE(h.sink.sent.size() == 2);
    CHECK(h.sink.sent[1].body.find("\"gatewayId\":\"gw-1\"") != std::string::npos);
}

TEST_CASE("an id whose send failed is not remembered: its redelivery is sent") {
    Harness h;
    const std::string id = new_event_id();
    h.sink.script = {Status::error(StatusCode::kRejected, "NO_PERMISSION")};
    CHECK(h.delivery->deliver(alarm("gw-1", "dev-1", 1, id)) == Verdict::kQuarantined);
    CHECK(h.delivery->deliver(alarm("gw-1", "dev-1", 1, id)) == Verdict::kForwarded);
}

TEST_CASE("an invalid message goes to quarantine with its reason, then may be acknowledged") {
    Harness h;
    const std::string id = new_event_id();
    InboundMessage spoofed;
    spoofed.topic = alarm_topic("gw-1", "dev-1");
    spoofed.payload = sample_envelope_text("gw-666", "dev-1", 1, id);
    CHECK(h.delivery->deliver(spoofed) == Verdict::kQuarantined);
    REQUIRE(h.sink.sent.size() == 1);
    const SinkMessage& sent = h.sink.sent[0];
    CHECK(sent.topic == "outpost_quarantine");
    CHECK(sent.tags == "gateway_mismatch");
    CHECK(sent.keys == quarantine_key(spoofed.topic, spoofed.payload) + " " + id);
    CHECK(sent.body == spoofed.payload);
    CHECK(sent.properties.at("OUTPOST_REASON") == "gateway_mismatch");
    CHECK(sent.properties.at("OUTPOST_DETAIL").find("gw-666") != std::string::npos);
    CHECK(sent.properties.at("OUTPOST_MQTT_TOPIC") == spoofed.topic);
    CHECK(sent.properties.count("OUTPOST_TRUNCATED") == 0);
    CHECK(h.stats.quarantined() == 1);
    CHECK(h.stats.to_json_line().find(R"("gateway_mismatch":1)") != std::string::npos);
}

TEST_CASE("a quarantined payload is cut to the configured size, and an empty one is marked") {
    InboundMessage big;
    big.topic = "outpost/gw-1/alarm/dev-1";
    big.payload = std::string(5000, '{');
    const SinkMessage cut =
        quarantine_message(big, Rejection{QuarantineReason::kJsonTooDeep, "deep"}, "q", 100);
    CHECK(cut.body.size() == 100);
    CHECK(cut.properties.at("OUTPOST_PAYLOAD_BYTES") == "5000");
    CHECK(cut.properties.at("OUTPOST_TRUNCATED") == "true");
    InboundMessage empty;
    empty.topic = "outpost/gw-1/alarm/dev-1";
    const SinkMessage marked =
        quarantine_message(empty, Rejection{QuarantineReason::kMalformedJson, "empty"}, "q", 100);
    CHECK(marked.body == "-");
    CHECK(marked.keys == quarantine_key(empty.topic, ""));
    CHECK(marked.keys.size() == 18);
}

TEST_CASE("detail and topic properties cannot carry RocketMQ's separators") {
    InboundMessage odd;
    odd.topic = "outpost/gw\x01/alarm/d\x02";
    odd.payload = "x";
    const SinkMessage sent = quarantine_message(
        odd, Rejection{QuarantineReason::kMalformedJson, "bad\x01\x02\n"}, "q", 100);
    CHECK(sent.properties.at("OUTPOST_MQTT_TOPIC") == "outpost/gw?/alarm/d?");
    CHECK(sent.properties.at("OUTPOST_DETAIL") == "bad???");
}

TEST_CASE("a valid message RocketMQ refuses for good is quarantined as rocketmq_rejected") {
    Harness h;
    h.sink.script = {Status::error(StatusCode::kRejected, "MESSAGE_ILLEGAL (13)")};
    CHECK(h.delivery->deliver(alarm("gw-1", "dev-1", 1, new_event_id())) == Verdict::kQuarantined);
    REQUIRE(h.sink.sent.size() == 2);
    CHECK(h.sink.sent[1].topic == "outpost_quarantine");
    CHECK(h.sink.sent[1].tags == "rocketmq_rejected");
    CHECK(h.sink.sent[1].properties.at("OUTPOST_DETAIL").find("MESSAGE_ILLEGAL") !=
          std::string::npos);
}

TEST_CASE("a topic no rule maps is quarantined as unmapped_topic") {
    BridgeConfig config = test_config();
    config.mapping = {{"outpost/+/alarm/critical-only", "alarms", "x"}};
    Harness h(config);
    CHECK(h.delivery->deliver(alarm("gw-1", "dev-1", 1, new_event_id())) == Verdict::kQuarantined);
    CHECK(h.sink.sent.at(0).tags == "unmapped_topic");
}

TEST_CASE("a failing quarantine send holds the message too, until stop") {
    Harness h;
    for (int i = 0; i < 100; ++i) h.sink.script.push_back(unavailable());
    h.sink.on_send = [&h](std::size_t sends) {
        if (sends == 3) h.stop.request_stop();
    };
    InboundMessage bad;
    bad.topic = alarm_topic("gw-1", "dev-1");
    bad.payload = "{";
    CHECK(h.delivery->deliver(bad) == Verdict::kStopped);
    CHECK(h.stats.quarantined() == 0);
}

TEST_CASE("latency percentiles come from the forwarded sends") {
    Harness h;
    for (int i = 0; i < 20; ++i) {
        CHECK(h.delivery->deliver(alarm("gw-1", "dev-1", i + 1, new_event_id())) ==
              Verdict::kForwarded);
    }
    CHECK(h.stats.to_json_line().find(R"("send_latency_ms":{"count":20,)") != std::string::npos);
}

TEST_CASE("the forward latency counts from the message's arrival, the send latency from its send, the wait between them") {
    Harness h;
    for (int i = 0; i < 5; ++i) {
        InboundMessage message = alarm("gw-1", "dev-1", i + 1, new_event_id());
        // Arrived 200 ms ago: waited that long before Delivery saw it.
        message.received_at = std::chrono::steady_clock::now() - std::chrono::milliseconds(200);
        CHECK(h.delivery->deliver(message) == Verdict::kForwarded);
    }
    const BridgeFigures figures = h.stats.figures();
    REQUIRE(figures.forward_latency.count() == 5);
    // Each forward latency is its send latency plus at least the 200 ms it
    // waited before the send began.
    CHECK(figures.forward_latency.count_below(std::chrono::microseconds(131072)) == 0);
    CHECK(figures.forward_latency.sum_us() >= figures.send_latency.sum_us() + 5 * 200000);
    // The wait is the part before the send: at least the 200 ms, and with
    // the send it makes up the forward latency (each to the microsecond).
    REQUIRE(figures.wait_latency.count() == 5);
    CHECK(figures.wait_latency.count_below(std::chrono::microseconds(131072)) == 0);
    const std::uint64_t parts = figures.wait_latency.sum_us() + figures.send_latency.sum_us();
    CHECK(parts + 5 >= figures.forward_latency.sum_us());
    CHECK(parts <= figures.forward_latency.sum_us() + 5);
}

TEST_CASE("an envelope with eventId three times is quarantined, never sent under any of them") {
    Harness h;
    const std::string ids[] = {new_event_id(), new_event_id(), new_event_id()};
    InboundMessage repeated;
    repeated.topic = alarm_topic("gw-1", "dev-1");
    repeated.payload = "{\"eventId\":\"" + ids[0] + "\",\"eventId\":\"" + ids[1] + "\"," +
                       sample_envelope_text("gw-1", "dev-1", 1, ids[2]).substr(1);
    CHECK(h.delivery->deliver(repeated) == Verdict::kQuarantined);
    REQUIRE(h.sink.sent.size() == 1);
    const SinkMessage& sent = h.sink.sent[0];
    CHECK(sent.topic == "outpost_quarantine");
    CHECK(sent.tags == "malformed_json");
    CHECK(sent.keys == quarantine_key(repeated.topic, repeated.payload));  // no eventId trusted
    CHECK(sent.properties.at("OUTPOST_DETAIL").find("eventId") != std::string::npos);
    // None of the three counts as seen: the genuine event still goes through.
    CHECK(h.delivery->deliver(alarm("gw-1", "dev-1", 1, ids[2])) == Verdict::kForwarded);
}

TEST_CASE("a refused identity holds the message without resending or quarantining, until stop") {
    Harness h;
    h.sink.script = {Status::error(StatusCode::kPermissionDenied,
                                   "broker answered NO_PERMISSION (16): check signature failed.")};
    // The stop comes after a day on the fake clock, in which a transient
    // error would have been resent and, the script empty, stored.
    CHECK(h.delivery->deliver(alarm("gw-1", "dev-1", 1, new_event_id())) == Verdict::kStopped);
    CHECK(h.sink.sent.size() == 1);
    CHECK(h.stats.quarantined() == 0);
    const std::string line = h.stats.to_json_line();
    CHECK(line.find(R"("rocketmq_refused":"permission_denied: broker answered NO_PERMISSION)") !=
          std::string::npos);
    CHECK(line.find(R"("holding":true)") != std::string::npos);
}
