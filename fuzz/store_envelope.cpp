// The envelope the store rebuilds from its rows (store/envelope.h): an
// alarm's fields and the context the rows hold, built into the bytes the
// publisher sends. Properties: whatever validate_alarm accepts, with a
// context the contract accepts, builds an envelope that the strict reader
// parses and the contract accepts (what the bridge checks), whose payload
// carries exactly the alarm's fields (the value as the very same double),
// and building it twice gives the same bytes. The same for application
// events through validate_event and event_envelope.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <variant>

#include "common/envelope_contract.h"
#include "common/envelope_document.h"
#include "common/strict_json.h"
#include "fuzz_check.h"
#include "outpost/alarm.h"
#include "outpost/event.h"
#include "store/envelope.h"

namespace {

using outpost::envelope::Field;
using outpost::envelope::rule;

// One of a few well-formed UUIDv7s, or fuzzed text.
std::string event_id(FuzzedDataProvider& input) {
    static const char* const kIds[] = {"01890a5d-ac96-774b-bcce-b302099a8057",
                                       "0192f5c3-1b2a-7c3d-8e4f-5a6b7c8d9e0f"};
    if (input.ConsumeBool()) return kIds[input.ConsumeIntegralInRange<int>(0, 1)];
    return input.ConsumeRandomLengthString(40);
}

outpost::store::EnvelopeContext context(FuzzedDataProvider& input) {
    outpost::store::EnvelopeContext out;
    out.event_id = event_id(input);
    out.gateway_id = input.ConsumeRandomLengthString(70);
    out.seq = input.ConsumeIntegral<std::int64_t>();
    out.wall_ms = input.ConsumeIntegral<std::int64_t>();
    out.boot_id = input.ConsumeRandomLengthString(70);
    out.uptime_ms = input.ConsumeIntegral<std::int64_t>();
    return out;
}

bool context_conforms(const outpost::store::EnvelopeContext& context) {
    using outpost::envelope::check_integer;
    using outpost::envelope::check_text;
    return !check_text(rule(Field::kEventId), context.event_id) &&
           !check_text(rule(Field::kGatewayId), context.gateway_id) &&
           !check_text(rule(Field::kBootId), context.boot_id) &&
           !check_integer(rule(Field::kSeq), context.seq) &&
           !check_integer(rule(Field::kUptimeMs), context.uptime_ms);
}

// Parses an envelope the store built and checks it against the contract.
nlohmann::json accepted_envelope(const std::string& bytes) {
    auto parsed = outpost::parse_strict_json(bytes, outpost::envelope::kMaxDepth);
    FUZZ_CHECK(std::holds_alternative<nlohmann::json>(parsed),
               "the store's envelope is one strict JSON document");
    nlohmann::json document = std::get<nlohmann::json>(std::move(parsed));
    FUZZ_CHECK(!outpost::envelope::check_envelope(document),
               "the store's envelope satisfies the envelope contract");
    return document;
}

void check_context_members(const nlohmann::json& document,
                           const outpost::store::EnvelopeContext& context) {
    FUZZ_CHECK(document["eventId"] == context.event_id, "eventId is the row's");
    FUZZ_CHECK(document["gatewayId"] == context.gateway_id, "gatewayId is the store's");
    FUZZ_CHECK(document["seq"] == context.seq, "seq is the row's");
    FUZZ_CHECK(document["bootId"] == context.boot_id, "bootId is the row's");
    FUZZ_CHECK(document["uptimeMs"] == context.uptime_ms, "uptimeMs is the row's");
}

void check_alarm(FuzzedDataProvider& input, const outpost::store::EnvelopeContext& context) {
    outpost::Alarm alarm;
    alarm.device_id = input.ConsumeRandomLengthString(70);
    alarm.alarm_type = input.ConsumeRandomLengthString(70);
    if (input.ConsumeBool()) alarm.event_type = input.ConsumeRandomLengthString(70);
    alarm.severity = static_cast<outpost::Severity>(input.ConsumeIntegralInRange<int>(0, 4));
    if (input.ConsumeBool()) {
        // Any bit pattern: NaN, infinities, -0, subnormals.
        const std::uint64_t bits = input.ConsumeIntegral<std::uint64_t>();
        double value;
        std::memcpy(&value, &bits, sizeof value);
        alarm.value = value;
    }
    alarm.unit = input.ConsumeRandomLengthString(40);
    alarm.text = input.ConsumeRandomLengthString(200);
    if (!outpost::store::validate_alarm(alarm).is_ok()) return;

    const std::string bytes = outpost::store::alarm_envelope(alarm, context);
    FUZZ_CHECK(bytes == outpost::store::alarm_envelope(alarm, context),
               "the same rows build the same bytes");
    const nlohmann::json document = accepted_envelope(bytes);
    check_context_members(document, context);
    FUZZ_CHECK(document["deviceId"] == alarm.device_id, "deviceId is the alarm's");
    FUZZ_CHECK(document["eventType"] == alarm.event_type, "eventType is the alarm's");
    const nlohmann::json& payload = document["payload"];
    FUZZ_CHECK(payload["alarmType"] == alarm.alarm_type, "payload.alarmType is the alarm's");
    FUZZ_CHECK(payload["severity"] == outpost::severity_name(alarm.severity),
               "payload.severity is the alarm's");
    FUZZ_CHECK(payload.value("unit", std::string()) == alarm.unit, "payload.unit is the alarm's");
    FUZZ_CHECK(payload.value("text", std::string()) == alarm.text, "payload.text is the alarm's");
    FUZZ_CHECK(payload.contains("value") == alarm.value.has_value(),
               "payload.value is present exactly when the alarm has one");
    if (alarm.value) {
        FUZZ_CHECK(payload["value"].is_number(), "payload.value is a number");
        // -0 reads back as 0 (alarm.h); every other double exactly.
        FUZZ_CHECK(payload["value"].get<double>() == *alarm.value,
                   "payload.value reads back as the recorded double");
    }
}

void check_event(FuzzedDataProvider& input, const outpost::store::EnvelopeContext& context) {
    outpost::Event event;
    event.event_type = input.ConsumeRandomLengthString(70);
    event.device_id = input.ConsumeRandomLengthString(70);
    event.aggregate_type = input.ConsumeRandomLengthString(70);
    event.aggregate_id = input.ConsumeRandomLengthString(70);
    event.payload_json = input.ConsumeRemainingBytesAsString();
    if (!outpost::store::validate_event(event).is_ok()) return;

    const std::string bytes = outpost::store::event_envelope(event, context);
    const nlohmann::json document = accepted_envelope(bytes);
    check_context_members(document, context);
    FUZZ_CHECK(document["deviceId"] == event.device_id, "deviceId is the event's");
    FUZZ_CHECK(document["aggregateId"] == event.aggregate_id, "aggregateId is the event's");
    auto payload = outpost::parse_strict_json(event.payload_json, outpost::envelope::kMaxDepth);
    FUZZ_CHECK(std::holds_alternative<nlohmann::json>(payload) &&
                   std::get<nlohmann::json>(payload) == document["payload"],
               "the envelope's payload is the application's");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider input(data, size);
    const outpost::store::EnvelopeContext row = context(input);
    if (!context_conforms(row)) return 0;
    if (input.ConsumeBool()) {
        check_alarm(input, row);
    } else {
        check_event(input, row);
    }
    return 0;
}
