#include "store/envelope.h"

#include <charconv>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <variant>

#include "common/envelope_contract.h"
#include "common/envelope_document.h"
#include "common/rfc3339.h"
#include "common/strict_json.h"
#include "common/text_checks.h"

namespace outpost::store {
namespace {

using envelope::Field;
using nlohmann::json;

Status invalid(const std::string& message) {
    return Status::error(StatusCode::kInvalidArgument, message);
}

// `value`, the application's `name` for envelope field `field`, against the
// contract.
Status check_field(const char* name, Field field, const std::string& value) {
    if (auto problem = envelope::check_text(envelope::rule(field), value)) {
        return invalid(std::string(name) + " " + *problem);
    }
    return Status::ok();
}

Status check_idempotency_key(const std::string& key) {
    if (key.size() > kMaxIdempotencyKeyBytes) {
        return invalid("idempotency_key is " + std::to_string(key.size()) + " bytes; at most " +
                       std::to_string(kMaxIdempotencyKeyBytes) + " allowed");
    }
    if (!is_valid_utf8(key)) return invalid("idempotency_key is not well-formed UTF-8");
    return Status::ok();
}

// The payload's depth budget: the envelope object is one level, so the
// payload may nest one level less than the envelope may.
constexpr int kMaxPayloadDepth = envelope::kMaxDepth - 1;

}  // namespace

Status validate_alarm(const Alarm& alarm) {
    if (Status s = check_field("device_id", Field::kDeviceId, alarm.device_id); !s) return s;
    if (Status s = check_field("alarm_type", Field::kAlarmType, alarm.alarm_type); !s) return s;
    if (Status s = check_field("event_type", Field::kEventType, alarm.event_type); !s) return s;
    if (alarm.value) {
        if (auto problem = envelope::check_number(envelope::rule(Field::kValue), *alarm.value)) {
            return invalid("value " + *problem);
        }
    }
    if (Status s = check_field("unit", Field::kUnit, alarm.unit); !s) return s;
    if (Status s = check_field("text", Field::kText, alarm.text); !s) return s;
    return check_idempotency_key(alarm.idempotency_key);
}

Status validate_event(const Event& event) {
    if (Status s = check_field("event_type", Field::kEventType, event.event_type); !s) return s;
    if (Status s = check_field("device_id", Field::kDeviceId, event.device_id); !s) return s;
    if (Status s = check_field("aggregate_type", Field::kAggregateType, event.aggregate_type); !s) {
        return s;
    }
    if (Status s = check_field("aggregate_id", Field::kAggregateId, event.aggregate_id); !s) {
        return s;
    }
    if (Status s = check_idempotency_key(event.idempotency_key); !s) return s;
    if (!is_valid_utf8(event.payload_json)) return invalid("payload_json is not well-formed UTF-8");
    auto parsed = parse_strict_json(event.payload_json, kMaxPayloadDepth);
    if (const auto* refusal = std::get_if<JsonRefusal>(&parsed)) {
        return invalid("payload_json " + refusal->detail);
    }
    if (auto problem = envelope::check_payload(std::get<json>(parsed))) {
        return invalid("payload_json: " + *problem);
    }
    return Status::ok();
}

namespace {

// Appends `text` as a JSON string. Inputs are validated UTF-8, so only
// quotes, backslashes and control characters need escaping; the contract
// lets only tab and line feed through (in payload.text), written as
// \u0009 and \u000a. Part of the stored format: do not change.
void append_json_string(std::string& out, const std::string& text) {
    out += '"';
    for (char c : text) {
        auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (u < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\u%04x", u);
            out += escaped;
        } else {
            out += c;
        }
    }
    out += '"';
}

void append_field(std::string& out, const char* key, const std::string& value) {
    out += '"';
    out += key;
    out += "\":";
    append_json_string(out, value);
    out += ',';
}

void append_field(std::string& out, const char* key, int64_t value) {
    out += '"';
    out += key;
    out += "\":";
    out += std::to_string(value);
    out += ',';
}

}  // namespace

std::string format_json_double(double value) {
    char number[64];  // the longest shortest form is 24 characters
    auto written = std::to_chars(number, number + sizeof number, value);
    return std::string(number, written.ptr);
}

// Built by hand rather than through nlohmann: the publisher rebuilds every
// alarm envelope on read, and this is several times faster. Keys are in
// sorted order, as nlohmann would write them. Deterministic: the same
// stored fields always give the same bytes.
std::string alarm_envelope(const Alarm& alarm, const EnvelopeContext& context) {
    std::string out;
    out.reserve(512 + alarm.text.size());
    out += '{';
    append_field(out, "aggregateId", alarm.device_id + "/" + alarm.alarm_type);
    append_field(out, "aggregateType", std::string("alarm"));
    append_field(out, "bootId", context.boot_id);
    append_field(out, "deviceId", alarm.device_id);
    append_field(out, "eventId", context.event_id);
    append_field(out, "eventType", alarm.event_type);
    append_field(out, "gatewayId", context.gateway_id);
    append_field(out, "occurredAt", format_rfc3339_ms(context.wall_ms));
    out += "\"payload\":{";
    append_field(out, "alarmType", alarm.alarm_type);
    append_field(out, "severity", std::string(severity_name(alarm.severity)));
    if (!alarm.text.empty()) append_field(out, "text", alarm.text);
    if (!alarm.unit.empty()) append_field(out, "unit", alarm.unit);
    if (alarm.value) {
        // -0.0 is written as 0: SQLite stores an integral REAL as an integer
        // (docs: "Datatypes In SQLite", REAL affinity), so the row gives back
        // +0.0, and the envelope is rebuilt from the row.
        out += "\"value\":";
        out += format_json_double(*alarm.value == 0 ? 0.0 : *alarm.value);
        out += ',';
    }
    out.back() = '}';
    out += ',';
    append_field(out, "schemaVersion", envelope::kSchemaVersion);
    append_field(out, "seq", context.seq);
    append_field(out, "uptimeMs", context.uptime_ms);
    out.back() = '}';
    return out;
}

size_t alarm_envelope_skeleton_bytes(const EnvelopeContext& context) {
    Alarm skeleton;
    skeleton.device_id = skeleton.alarm_type = skeleton.event_type = "x";
    skeleton.unit = skeleton.text = "x";
    skeleton.severity = Severity::kCritical;  // the longest name
    skeleton.value = -2.2250738585072014e-308;  // 24 characters, the most to_chars writes
    return alarm_envelope(skeleton, context).size();
}

size_t alarm_envelope_bound(const Alarm& alarm, size_t skeleton_bytes) {
    constexpr size_t kWidestEscape = 6;  // \u00XX
    constexpr size_t kMostPlaces = 2;
    const size_t string_bytes = alarm.device_id.size() + alarm.alarm_type.size() +
                                alarm.event_type.size() + alarm.unit.size() + alarm.text.size();
    return skeleton_bytes + kWidestEscape * kMostPlaces * string_bytes;
}

std::string event_envelope(const Event& event, const EnvelopeContext& context) {
    json document{{"eventId", context.event_id},
                  {"eventType", event.event_type},
                  {"schemaVersion", envelope::kSchemaVersion},
                  {"gatewayId", context.gateway_id},
                  {"deviceId", event.device_id},
                  {"seq", context.seq},
                  {"aggregateType", event.aggregate_type},
                  {"aggregateId", event.aggregate_id},
                  {"occurredAt", format_rfc3339_ms(context.wall_ms)},
                  {"bootId", context.boot_id},
                  {"uptimeMs", context.uptime_ms}};
    document["payload"] = json::parse(event.payload_json, nullptr, /*allow_exceptions=*/false);
    return document.dump();
}

}  // namespace outpost::store

namespace outpost {

static_assert(static_cast<std::size_t>(Severity::kCritical) + 1 == envelope::kSeverityNames.size(),
              "kSeverityNames lists the severities in the order of outpost::Severity");

const char* severity_name(Severity severity) {
    const auto index = static_cast<std::size_t>(severity);
    return index < envelope::kSeverityNames.size() ? envelope::kSeverityNames[index] : "major";
}

std::optional<Severity> parse_severity(const std::string& name) {
    for (std::size_t i = 0; i < envelope::kSeverityNames.size(); ++i) {
        if (name == envelope::kSeverityNames[i]) return static_cast<Severity>(i);
    }
    return std::nullopt;
}

}  // namespace outpost
