#include "common/envelope_contract.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "common/rfc3339.h"
#include "common/text_checks.h"

namespace outpost::envelope {
namespace {

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

FieldRule text_field(Field field, const char* name, const char* path, bool required, TextRule text,
                     std::size_t min_length, std::size_t max_length, const char* description) {
    return FieldRule{field,      name, path, FieldType::kString, required, text, min_length,
                     max_length, 0,    0,    description};
}

FieldRule integer_field(Field field, const char* name, std::int64_t min, std::int64_t max,
                        const char* description) {
    return FieldRule{field, name, name, FieldType::kInteger, true, TextRule::kNone, 0,
                     0,     min,  max,  description};
}

// The table. Each description is also the field's description in the schema
// file, so it speaks to whoever consumes the envelope.
std::vector<FieldRule> make_envelope_fields() {
    return {
        text_field(Field::kEventId, "eventId", "eventId", true, TextRule::kUuidV7, 0, 0,
                   "UUIDv7 assigned once at commit; stable across retries, restarts and "
                   "replays. Consumers deduplicate on it."),
        text_field(Field::kEventType, "eventType", "eventType", true, TextRule::kEventType, 1, 64,
                   "ALARM_RAISED, ALARM_CLEARED, or an application event type."),
        integer_field(Field::kSchemaVersion, "schemaVersion", kSchemaVersion, kSchemaVersion,
                      "The version of this contract, written as the integer literal 1."),
        text_field(Field::kGatewayId, "gatewayId", "gatewayId", true, TextRule::kIdentifier, 1,
                   kMaxIdentifierLength,
                   "The gateway that recorded the event; one MQTT topic level and a RocketMQ "
                   "key part."),
        text_field(Field::kDeviceId, "deviceId", "deviceId", true, TextRule::kIdentifier, 1,
                   kMaxIdentifierLength,
                   "The device the event is about; orders the events (seq is per device)."),
        integer_field(Field::kSeq, "seq", 1, kInt64Max,
                      "Per-device sequence number, from 1, assigned at commit, never reused. "
                      "An integer literal within int64: 1.0 and 1e3 are refused."),
        text_field(Field::kAggregateType, "aggregateType", "aggregateType", true, TextRule::kLabel,
                   1, 64, "What the event is about: \"alarm\" for alarms."),
        text_field(Field::kAggregateId, "aggregateId", "aggregateId", true, TextRule::kLabel, 1,
                   256, "Which one: \"<deviceId>/<alarmType>\" for alarms."),
        text_field(Field::kOccurredAt, "occurredAt", "occurredAt", true, TextRule::kDateTime, 0, 0,
                   "Wall clock at commit (RFC 3339, UTC, milliseconds). May be unsynchronised "
                   "(1970 before NTP): correct it with bootId and uptimeMs. Clamped to years "
                   "0000-9999."),
        text_field(Field::kBootId, "bootId", "bootId", true, TextRule::kLabel, 1, 64,
                   "Kernel boot id of the gateway at commit."),
        integer_field(Field::kUptimeMs, "uptimeMs", 0, kInt64Max,
                      "CLOCK_BOOTTIME milliseconds at commit. An integer literal within int64."),
        FieldRule{Field::kPayload, "payload", "payload", FieldType::kObject, true, TextRule::kNone,
                  0, 0, 0, 0,
                  "The event body. For alarms: the members below; for application events: any "
                  "object, whose members named below follow the same rules."},
    };
}

std::vector<FieldRule> make_payload_fields() {
    return {
        text_field(Field::kAlarmType, "alarmType", "payload.alarmType", false, TextRule::kLabel, 1,
                   64, "What went wrong, e.g. OVER_TEMPERATURE."),
        text_field(Field::kSeverity, "severity", "payload.severity", false, TextRule::kSeverity, 0,
                   0, "One of info, warning, minor, major, critical."),
        FieldRule{Field::kValue, "value", "payload.value", FieldType::kNumber, false,
                  TextRule::kNone, 0, 0, 0, 0,
                  "The measured value, a finite number. Alarms write the shortest form that "
                  "reads back to the same double (100, 0.1, 1e+21)."},
        text_field(Field::kUnit, "unit", "payload.unit", false, TextRule::kLabel, 0, 32,
                   "Unit of value, e.g. degC."),
        text_field(Field::kText, "text", "payload.text", false, TextRule::kFreeText, 0, 1024,
                   "Free text for people; may hold tab and line feed, no other control "
                   "character."),
    };
}

std::string u_plus(unsigned code) {
    char text[16];
    std::snprintf(text, sizeof text, "U+%04X", code);
    return text;
}

// The first control character in well-formed UTF-8 `text` (C0, DEL, C1)
// that `text_rule` does not allow, as "U+0000"; nullopt when there is none.
std::optional<std::string> forbidden_control(const std::string& text, TextRule text_rule) {
    for (std::size_t i = 0; i < text.size(); ++i) {
        const auto byte = static_cast<unsigned char>(text[i]);
        if (byte < 0x20 || byte == 0x7F) {
            if (text_rule == TextRule::kFreeText && (byte == '\t' || byte == '\n')) continue;
            return u_plus(byte);
        }
        // U+0080-U+009F are 0xC2 0x80-0xC2 0x9F in UTF-8.
        if (byte == 0xC2 && i + 1 < text.size()) {
            const auto next = static_cast<unsigned char>(text[i + 1]);
            if (next >= 0x80 && next <= 0x9F) return u_plus(next);
        }
    }
    return std::nullopt;
}

bool is_event_type(const std::string& text) {
    if (text.empty() || text[0] < 'A' || text[0] > 'Z') return false;
    for (char c : text) {
        if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
    }
    return true;
}

bool is_identifier(const std::string& text) {
    for (char c : text) {
        if (!is_identifier_char(c)) return false;
    }
    return true;
}

std::string length_range(const FieldRule& rule) {
    return std::to_string(rule.min_length) + " to " + std::to_string(rule.max_length) +
           " characters";
}

}  // namespace

const std::vector<FieldRule>& envelope_fields() {
    static const std::vector<FieldRule> fields = make_envelope_fields();
    return fields;
}

const std::vector<FieldRule>& payload_fields() {
    static const std::vector<FieldRule> fields = make_payload_fields();
    return fields;
}

const FieldRule& rule(Field field) {
    for (const auto* fields : {&envelope_fields(), &payload_fields()}) {
        for (const FieldRule& candidate : *fields) {
            if (candidate.field == field) return candidate;
        }
    }
    return envelope_fields().front();  // unreachable: every Field has a row
}

std::optional<std::string> check_text(const FieldRule& rule, const std::string& value) {
    if (!is_valid_utf8(value)) return "is not well-formed UTF-8";
    if (rule.max_length != 0) {
        const std::size_t length = count_code_points(value);
        if (length < rule.min_length || length > rule.max_length) {
            return "must have " + length_range(rule) + " (has " + std::to_string(length) + ")";
        }
    }
    switch (rule.text) {
        case TextRule::kNone:
            break;
        case TextRule::kUuidV7:
            if (!is_lowercase_uuid_v7(value)) return "must be a lower-case UUIDv7";
            break;
        case TextRule::kEventType:
            if (!is_event_type(value)) return "must be [A-Z] then [A-Z0-9_], " + length_range(rule);
            break;
        case TextRule::kIdentifier:
            if (!is_identifier(value))
                return "must be " + length_range(rule) + " of [A-Za-z0-9._-]";
            break;
        case TextRule::kLabel:
        case TextRule::kFreeText:
            if (auto control = forbidden_control(value, rule.text)) {
                return "holds control character " + *control +
                       (rule.text == TextRule::kFreeText ? " (only tab and line feed are allowed)"
                                                         : "");
            }
            break;
        case TextRule::kDateTime:
            if (!is_rfc3339_date_time(value)) return "must be an RFC 3339 date-time";
            break;
        case TextRule::kSeverity:
            for (const char* name : kSeverityNames) {
                if (value == name) return std::nullopt;
            }
            return "must be one of info, warning, minor, major, critical";
    }
    return std::nullopt;
}

std::optional<std::string> check_integer(const FieldRule& rule, std::int64_t value) {
    if (value >= rule.min_integer && value <= rule.max_integer) return std::nullopt;
    if (rule.min_integer == rule.max_integer) return "must be " + std::to_string(rule.min_integer);
    return "must be an integer from " + std::to_string(rule.min_integer) + " to " +
           std::to_string(rule.max_integer);
}

std::optional<std::string> check_number(const FieldRule&, double value) {
    if (!std::isfinite(value)) return "must be a finite number";
    return std::nullopt;
}

}  // namespace outpost::envelope
