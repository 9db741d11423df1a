#include "store/envelope.h"

#include <time.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

#include <nlohmann/json.hpp>

namespace outpost::store {
namespace {

using nlohmann::json;

Status invalid(const std::string& message) {
    return Status::error(StatusCode::kInvalidArgument, message);
}

Status validate_text_field(const char* name, const std::string& value, size_t max) {
    if (value.size() > max) {
        return invalid(std::string(name) + " is " + std::to_string(value.size()) +
                       " bytes; at most " + std::to_string(max) + " allowed");
    }
    if (!is_valid_utf8(value)) return invalid(std::string(name) + " is not valid UTF-8");
    return Status::ok();
}

json common_fields(const std::string& event_type, const std::string& device_id,
                   const std::string& aggregate_type, const std::string& aggregate_id,
                   const EnvelopeContext& context) {
    return json{{"eventId", context.event_id},
                {"eventType", event_type},
                {"schemaVersion", kSchemaVersion},
                {"gatewayId", context.gateway_id},
                {"deviceId", device_id},
                {"seq", context.seq},
                {"aggregateType", aggregate_type},
                {"aggregateId", aggregate_id},
                {"occurredAt", format_rfc3339_ms(context.wall_ms)},
                {"bootId", context.boot_id},
                {"uptimeMs", context.uptime_ms}};
}

}  // namespace

Status validate_alarm(const Alarm& alarm) {
    if (!is_valid_identifier(alarm.device_id)) {
        return invalid("device_id '" + alarm.device_id + "' must match [A-Za-z0-9._-]{1,64}");
    }
    if (alarm.alarm_type.empty()) return invalid("alarm_type is required");
    if (Status s = validate_text_field("alarm_type", alarm.alarm_type, 64); !s) return s;
    if (!is_valid_event_type(alarm.event_type)) {
        return invalid("event_type '" + alarm.event_type + "' must match [A-Z][A-Z0-9_]{0,63}");
    }
    if (alarm.value && !std::isfinite(*alarm.value)) return invalid("value must be finite");
    if (Status s = validate_text_field("unit", alarm.unit, 32); !s) return s;
    if (Status s = validate_text_field("text", alarm.text, 1024); !s) return s;
    return validate_text_field("idempotency_key", alarm.idempotency_key, kMaxIdempotencyKeyBytes);
}

Status validate_event(const Event& event) {
    if (!is_valid_event_type(event.event_type)) {
        return invalid("event_type '" + event.event_type + "' must match [A-Z][A-Z0-9_]{0,63}");
    }
    if (!is_valid_identifier(event.device_id)) {
        return invalid("device_id '" + event.device_id + "' must match [A-Za-z0-9._-]{1,64}");
    }
    if (event.aggregate_type.empty() || event.aggregate_id.empty()) {
        return invalid("aggregate_type and aggregate_id are required");
    }
    if (Status s = validate_text_field("aggregate_type", event.aggregate_type, 64); !s) return s;
    if (Status s = validate_text_field("aggregate_id", event.aggregate_id, 256); !s) return s;
    if (Status s = validate_text_field("idempotency_key", event.idempotency_key,
                                       kMaxIdempotencyKeyBytes);
        !s) {
        return s;
    }
    json payload = json::parse(event.payload_json, nullptr, /*allow_exceptions=*/false);
    if (payload.is_discarded()) return invalid("payload_json is not valid JSON");
    if (!payload.is_object()) return invalid("payload_json must be a JSON object");
    return Status::ok();
}

namespace {

// Appends `text` as a JSON string. Inputs are validated UTF-8, so only
// quotes, backslashes and control characters need escaping.
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
        char number[64];
        auto written = std::to_chars(number, number + sizeof number, *alarm.value);
        out += "\"value\":";
        out.append(number, written.ptr);
        out += ',';
    }
    out.back() = '}';
    out += ',';
    append_field(out, "schemaVersion", static_cast<int64_t>(kSchemaVersion));
    append_field(out, "seq", context.seq);
    append_field(out, "uptimeMs", context.uptime_ms);
    out.back() = '}';
    return out;
}

std::string event_envelope(const Event& event, const EnvelopeContext& context) {
    json envelope = common_fields(event.event_type, event.device_id, event.aggregate_type,
                                  event.aggregate_id, context);
    envelope["payload"] = json::parse(event.payload_json, nullptr, false);
    return envelope.dump();
}

std::string format_rfc3339_ms(int64_t unix_ms) {
    time_t seconds = static_cast<time_t>(unix_ms >= 0 ? unix_ms / 1000 : (unix_ms - 999) / 1000);
    int millis = static_cast<int>(unix_ms - static_cast<int64_t>(seconds) * 1000);
    tm utc{};
    gmtime_r(&seconds, &utc);
    char text[64];
    std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                  utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, millis);
    return text;
}

}  // namespace outpost::store

namespace outpost {

const char* severity_name(Severity severity) {
    switch (severity) {
        case Severity::kInfo: return "info";
        case Severity::kWarning: return "warning";
        case Severity::kMinor: return "minor";
        case Severity::kMajor: return "major";
        case Severity::kCritical: return "critical";
    }
    return "major";
}

std::optional<Severity> parse_severity(const std::string& name) {
    for (Severity s : {Severity::kInfo, Severity::kWarning, Severity::kMinor, Severity::kMajor,
                       Severity::kCritical}) {
        if (name == severity_name(s)) return s;
    }
    return std::nullopt;
}

}  // namespace outpost
