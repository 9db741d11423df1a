// The bad-input corpus: every way a message can be wrong yields its own
// quarantine reason, and nothing throws or crashes, whatever the bytes.
#include <catch2/catch.hpp>
#include <string>
#include <variant>

#include "bridge/envelope_check.h"
#include "sample_envelope.h"

using namespace outpost::bridge;
using nlohmann::json;
using outpost::testing::alarm_topic;
using outpost::testing::sample_envelope;
using outpost::testing::sample_envelope_text;

namespace {

const std::string kEventId = "0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b";

InboundMessage message_of(const std::string& payload,
                          const std::string& topic = alarm_topic("gw-1", "dev-1")) {
    InboundMessage message;
    message.topic = topic;
    message.payload = payload;
    return message;
}

std::string valid_payload() {
    return sample_envelope_text("gw-1", "dev-1", 1, kEventId);
}

// The envelope with `field` set to `value` (or erased when value is null).
std::string with_field(const std::string& field, const json& value) {
    json envelope = sample_envelope("gw-1", "dev-1", 1, kEventId);
    if (value.is_null()) {
        envelope.erase(field);
    } else {
        envelope[field] = value;
    }
    return envelope.dump();
}

// Checks `message`; returns the reason name, or "ok".
std::string verdict(const InboundMessage& message, const IdentityConfig& identity = {}) {
    auto checked = check_inbound(message, LimitsConfig{}, identity);
    if (std::holds_alternative<CheckedEnvelope>(checked)) return "ok";
    const Rejection& rejection = std::get<Rejection>(checked);
    INFO("detail: " << rejection.detail);
    CHECK_FALSE(rejection.detail.empty());
    return quarantine_reason_name(rejection.reason);
}

std::string verdict(const std::string& payload) {
    return verdict(message_of(payload));
}

}  // namespace

TEST_CASE("a gateway's envelope passes and yields the fields forwarding needs") {
    auto checked = check_inbound(message_of(valid_payload()), LimitsConfig{}, IdentityConfig{});
    REQUIRE(std::holds_alternative<CheckedEnvelope>(checked));
    const auto& envelope = std::get<CheckedEnvelope>(checked);
    CHECK(envelope.event_id == kEventId);
    CHECK(envelope.gateway_id == "gw-1");
    CHECK(envelope.device_id == "dev-1");
    CHECK(envelope.event_type == "ALARM_RAISED");
    CHECK(envelope.document["payload"]["severity"] == "critical");
}

TEST_CASE("size is checked before parsing: a 10 MB payload is payload_too_large") {
    std::string huge = "{\"x\":\"" + std::string(10 * 1024 * 1024, 'a') + "\"}";
    CHECK(verdict(huge) == "payload_too_large");
}

TEST_CASE("bytes that are not JSON are malformed_json") {
    const std::string valid = valid_payload();
    CHECK(verdict(valid.substr(0, valid.size() / 2)) == "malformed_json");  // truncated
    CHECK(verdict(valid + "}") == "malformed_json");                        // trailing bytes
    CHECK(verdict("") == "malformed_json");
    CHECK(verdict("{'single': 'quotes'}") == "malformed_json");
    CHECK(verdict(std::string("{\"a\":\0}", 7)) == "malformed_json");
}

TEST_CASE("invalid UTF-8 is invalid_utf8, wherever it sits") {
    CHECK(verdict(with_field("aggregateId", "dev-1") + "\xff") == "invalid_utf8");
    std::string overlong = valid_payload();
    overlong.replace(overlong.find("overheat"), 1, "\xc0\xaf");  // overlong '/'
    CHECK(verdict(overlong) == "invalid_utf8");
    std::string surrogate = valid_payload();
    surrogate.replace(surrogate.find("overheat"), 1, "\xed\xa0\x80");
    CHECK(verdict(surrogate) == "invalid_utf8");
}

TEST_CASE("nesting deeper than the limit is json_too_deep, and cheap even when hostile") {
    json envelope = sample_envelope("gw-1", "dev-1", 1, kEventId);
    json deep = 1;
    for (int i = 0; i < 20; ++i) deep = json{{"a", deep}};
    envelope["payload"]["extra"] = deep;
    CHECK(verdict(envelope.dump()) == "json_too_deep");
    // 200k open brackets: refused without recursion or a deep tree.
    CHECK(verdict(std::string(200000, '[')) == "json_too_deep");
    CHECK(verdict(std::string(100000, '[') + std::string(100000, ']')) == "json_too_deep");
}

TEST_CASE("schema violations name the field") {
    struct Case {
        std::string payload;
        std::string field;
    };
    const std::vector<Case> cases = {
        {"[1,2]", "envelope"},
        {with_field("eventId", nullptr), "eventId"},
        {with_field("eventId", 42), "eventId"},
        {with_field("eventId", "0190A1B2-C3D4-7E5F-8A6B-7C8D9E0F1A2B"), "eventId"},  // upper case
        {with_field("eventId", "0190a1b2-c3d4-4e5f-8a6b-7c8d9e0f1a2b"), "eventId"},  // v4
        {with_field("eventType", "alarm raised"), "eventType"},
        {with_field("schemaVersion", 2), "schemaVersion"},
        {with_field("gatewayId", "gw/1"), "gatewayId"},
        {with_field("deviceId", ""), "deviceId"},
        {with_field("seq", "1"), "seq"},
        {with_field("seq", 0), "seq"},
        {with_field("seq", 1.5), "seq"},
        {with_field("seq", 1e308), "seq"},
        {with_field("aggregateType", ""), "aggregateType"},
        {with_field("aggregateId", std::string(257, 'x')), "aggregateId"},
        {with_field("occurredAt", "yesterday"), "occurredAt"},
        {with_field("occurredAt", "2024-13-01T00:00:00Z"), "occurredAt"},
        {with_field("bootId", nullptr), "bootId"},
        {with_field("uptimeMs", -1), "uptimeMs"},
        {with_field("payload", json::array()), "payload"},
        {with_field("payload", json{{"severity", "urgent"}}), "payload.severity"},
        {with_field("payload", json{{"value", "hot"}}), "payload.value"},
        {with_field("payload", json{{"unit", std::string(33, 'u')}}), "payload.unit"},
        {with_field("payload", json{{"alarmType", ""}}), "alarmType"},
        {with_field("firmware", "1.2"), "firmware"},
    };
    for (const Case& bad : cases) {
        INFO("payload: " << bad.payload.substr(0, 200));
        auto checked = check_inbound(message_of(bad.payload), LimitsConfig{}, IdentityConfig{});
        REQUIRE(std::holds_alternative<Rejection>(checked));
        const Rejection& rejection = std::get<Rejection>(checked);
        CHECK(rejection.reason == QuarantineReason::kSchemaViolation);
        CHECK(rejection.detail.find(bad.field) != std::string::npos);
    }
}

TEST_CASE("lengths count characters, as JSON Schema's maxLength does") {
    CHECK(verdict(with_field("aggregateType", std::string(64, 'a'))) == "ok");
    std::string accents;
    for (int i = 0; i < 64; ++i) accents += "\xc3\xa9";  // 64 characters, 128 bytes
    CHECK(verdict(with_field("aggregateType", accents)) == "ok");
    CHECK(verdict(with_field("aggregateType", accents + "\xc3\xa9")) == "schema_violation");
    CHECK(verdict(with_field("occurredAt", "2024-06-01T12:00:00+02:00")) == "ok");
}

// Hostile envelopes: what a gateway could send to slip past a lax reader.

TEST_CASE("an envelope that repeats eventId three times is malformed_json, never forwarded") {
    // nlohmann alone would keep the last eventId for KEYS while a first-wins
    // parser at the consumer reads the first: the dedupe key and the body
    // would disagree.
    const std::string valid = valid_payload();
    const std::string repeated =
        "{\"eventId\":\"0190a1b2-c3d4-7e5f-8a6b-000000000001\","
        "\"eventId\":\"0190a1b2-c3d4-7e5f-8a6b-000000000002\"," +
        valid.substr(1);
    REQUIRE(json::parse(repeated)["eventId"] == kEventId);
    auto checked = check_inbound(message_of(repeated), LimitsConfig{}, IdentityConfig{});
    REQUIRE(std::holds_alternative<Rejection>(checked));
    const Rejection& rejection = std::get<Rejection>(checked);
    CHECK(rejection.reason == QuarantineReason::kMalformedJson);
    CHECK(rejection.detail.find("repeats key \"eventId\"") != std::string::npos);
    CHECK(rejection.event_id.empty());  // no eventId can be trusted
}

TEST_CASE("a key repeated inside the payload is malformed_json too") {
    std::string repeated = valid_payload();
    repeated.replace(repeated.find("\"severity\""), 0, "\"severity\":\"info\",");
    CHECK(verdict(repeated) == "malformed_json");
}

TEST_CASE("a NUL or other control character in a string field is schema_violation") {
    const std::string controls[] = {std::string("\0", 1), "\x01", "\x1b", "\r", "\x7f", "\xc2\x9b"};
    for (const std::string& control : controls) {
        INFO("control byte " << static_cast<int>(static_cast<unsigned char>(control.back())));
        json envelope = sample_envelope("gw-1", "dev-1", 1, kEventId);
        envelope["payload"]["alarmType"] = "over" + control + "heat";
        CHECK(verdict(envelope.dump()) == "schema_violation");
        for (const char* field : {"aggregateType", "aggregateId", "bootId"}) {
            CHECK(verdict(with_field(field, "x" + control)) == "schema_violation");
        }
        envelope = sample_envelope("gw-1", "dev-1", 1, kEventId);
        envelope["payload"]["unit"] = "C" + control;
        CHECK(verdict(envelope.dump()) == "schema_violation");
        envelope = sample_envelope("gw-1", "dev-1", 1, kEventId);
        envelope["payload"]["text"] = "hot" + control;
        CHECK(verdict(envelope.dump()) == "schema_violation");
    }
}

TEST_CASE("tab and line feed are allowed in payload.text only") {
    json envelope = sample_envelope("gw-1", "dev-1", 1, kEventId);
    envelope["payload"]["text"] = "line one\n\tline two";
    CHECK(verdict(envelope.dump()) == "ok");
    envelope["payload"]["alarmType"] = "over\theat";
    CHECK(verdict(envelope.dump()) == "schema_violation");
    CHECK(verdict(with_field("aggregateId", "dev-1\noverheat")) == "schema_violation");
}

TEST_CASE("seq 1e+308, 1.0 or beyond int64 is schema_violation: integers are integer literals") {
    // JSON Schema's "integer" would take 1.0; the contract does not, so that
    // every consumer can read seq and uptimeMs into an int64 (see
    // common/envelope_contract.h).
    const std::string valid = valid_payload();
    auto with_seq_text = [&](const std::string& text) {
        std::string payload = valid;
        const std::size_t at = payload.find("\"seq\":1,") + 6;
        payload.replace(at, 1, text);
        return payload;
    };
    REQUIRE(verdict(with_seq_text("1")) == "ok");
    for (const char* bad : {"1e+308", "1.0", "1e0", "10E-1", "9223372036854775808",
                            "18446744073709551616", "-1", "0"}) {
        INFO("seq " << bad);
        CHECK(verdict(with_seq_text(bad)) == "schema_violation");
    }
    CHECK(verdict(with_seq_text("9223372036854775807")) == "ok");
    CHECK(verdict(with_seq_text("1e400")) == "malformed_json");  // beyond double range
    CHECK(verdict(with_field("uptimeMs", 5.0)) == "schema_violation");
    CHECK(verdict(with_field("schemaVersion", 1.0)) == "schema_violation");
}

TEST_CASE("a UTF-8 byte-order mark before the JSON is malformed_json") {
    CHECK(verdict("\xEF\xBB\xBF" + valid_payload()) == "malformed_json");
}

TEST_CASE("a spoofed gatewayId is gateway_mismatch and keeps its eventId for operators") {
    const std::string spoofed = sample_envelope("gw-2", "dev-1", 1, kEventId).dump();
    auto checked = check_inbound(message_of(spoofed), LimitsConfig{}, IdentityConfig{});
    REQUIRE(std::holds_alternative<Rejection>(checked));
    CHECK(std::get<Rejection>(checked).reason == QuarantineReason::kGatewayMismatch);
    CHECK(std::get<Rejection>(checked).event_id == kEventId);
    CHECK(verdict(message_of(valid_payload(), "outpost")) == "gateway_mismatch");
}

TEST_CASE("a deviceId that is not the topic's device level is device_mismatch") {
    CHECK(verdict(message_of(valid_payload(), alarm_topic("gw-1", "dev-2"))) == "device_mismatch");
    IdentityConfig no_device_check;
    no_device_check.device_level = -1;
    CHECK(verdict(message_of(valid_payload(), alarm_topic("gw-1", "dev-2")), no_device_check) ==
          "ok");
}

TEST_CASE("random bytes never throw") {
    std::string bytes;
    std::uint32_t state = 12345;
    for (int round = 0; round < 2000; ++round) {
        bytes.clear();
        const int length = static_cast<int>(state % 300);
        for (int i = 0; i < length; ++i) {
            state = state * 1103515245u + 12345u;
            bytes += static_cast<char>((state >> 16) & 0xff);
        }
        CHECK_NOTHROW(check_inbound(message_of(bytes), LimitsConfig{}, IdentityConfig{}));
    }
    // Mutations of a valid envelope, one byte at a time.
    const std::string valid = valid_payload();
    for (std::size_t at = 0; at < valid.size(); ++at) {
        std::string mutated = valid;
        mutated[at] = static_cast<char>(mutated[at] ^ 0x5a);
        CHECK_NOTHROW(check_inbound(message_of(mutated), LimitsConfig{}, IdentityConfig{}));
    }
}
