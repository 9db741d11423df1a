// The event envelope contract, schemaVersion 1: the one definition of every
// field's name, JSON type, range and character set.
//
// Who reads this table:
//   - the store, to refuse what the application passes (store/envelope.cpp,
//     validate_alarm and validate_event) before it builds an envelope;
//   - the bridge, to check what arrives (bridge/envelope_check.cpp, through
//     envelope_document.h);
//   - schema/event.schema.json is this table rendered (envelope_json_schema.h):
//     tests/unit/envelope/schema_file_test.cpp fails when the file differs,
//     and runs a corpus through a JSON Schema evaluator and through this code.
//
// Decisions the table encodes:
//   - Lengths count Unicode code points, as JSON Schema's minLength and
//     maxLength do, at the store as at the bridge.
//   - Integers are JSON integer literals within int64. "1.0", "1e3" and
//     1e+308 are refused, although JSON Schema's "integer" would take 1.0:
//     consumers read seq and uptimeMs into 64-bit integers (Go and Rust
//     refuse 1.0 there), and a number written with a fraction or exponent is
//     exact only up to 2^53. The schema file says so in its descriptions.
//   - Numbers (payload.value) are finite doubles: minimum and maximum are
//     -DBL_MAX and DBL_MAX, which also refuses 1e400.
//   - Identifiers (gatewayId, deviceId) carry only [A-Za-z0-9._-]: they
//     become MQTT topic levels and RocketMQ key parts.
//   - No string field carries a control character (U+0000-U+001F, U+007F,
//     U+0080-U+009F), except that the alarm's free text (payload.text) may
//     hold tab and line feed for multi-line descriptions. Carriage return is
//     refused there too: one line break, one form.
//   - A key repeated in any object, and a byte-order mark before the JSON,
//     are refused at parse time (strict_json.h): the JSON data model cannot
//     express them, so the schema file cannot either.
//   - payload is any object for application events; its alarm members
//     (alarmType, severity, value, unit, text) follow the rules below
//     wherever they appear.
#ifndef OUTPOST_COMMON_ENVELOPE_CONTRACT_H
#define OUTPOST_COMMON_ENVELOPE_CONTRACT_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace outpost::envelope {

constexpr std::int64_t kSchemaVersion = 1;

// Deepest nesting of objects and arrays in one envelope ({} is 1, the
// envelope with a flat payload is 2). The bridge's default limit; the store
// refuses event payloads that would build a deeper envelope.
constexpr int kMaxDepth = 16;

// The severity names, in the order of outpost::Severity.
constexpr std::array<const char*, 5> kSeverityNames = {"info", "warning", "minor", "major",
                                                       "critical"};

enum class FieldType { kString, kInteger, kNumber, kObject };

// What a string field may hold, beyond well-formed UTF-8 and its length.
enum class TextRule {
    kNone,        // not a string
    kUuidV7,      // lower-case canonical UUIDv7 (text_checks.h)
    kEventType,   // [A-Z] then [A-Z0-9_]
    kIdentifier,  // [A-Za-z0-9._-]
    kLabel,       // anything but control characters
    kFreeText,    // anything but control characters other than tab and line feed
    kDateTime,    // RFC 3339 date-time (rfc3339.h)
    kSeverity,    // one of kSeverityNames
};

// Every field the contract names; rule(Field) gives its rule.
enum class Field {
    kEventId,
    kEventType,
    kSchemaVersion,
    kGatewayId,
    kDeviceId,
    kSeq,
    kAggregateType,
    kAggregateId,
    kOccurredAt,
    kBootId,
    kUptimeMs,
    kPayload,
    kAlarmType,
    kSeverity,
    kValue,
    kUnit,
    kText,
};

struct FieldRule {
    Field field;
    const char* name;  // the JSON key inside its object
    const char* path;  // dotted from the envelope, for messages: "payload.unit"
    FieldType type;
    bool required;
    TextRule text;
    // Strings: length bounds in code points; max_length 0 means the text
    // rule fixes the shape (a UUID, a date-time, a severity name).
    std::size_t min_length;
    std::size_t max_length;
    // Integers: inclusive bounds.
    std::int64_t min_integer;
    std::int64_t max_integer;
    const char* description;
};

// The envelope's members, in the order of the schema's "required" list. All
// are required; no other member is allowed.
const std::vector<FieldRule>& envelope_fields();

// The alarm members of "payload", all optional; other members are allowed
// (application events).
const std::vector<FieldRule>& payload_fields();

// The rule of `field`.
const FieldRule& rule(Field field);

// Checks of one value against its rule. Each returns nullopt when the value
// conforms, else what is wrong without the field's name, e.g. "must be 1 to
// 64 characters of [A-Za-z0-9._-]" or "holds control character U+0000".
// `value` may be any bytes: check_text refuses malformed UTF-8 first.
std::optional<std::string> check_text(const FieldRule& rule, const std::string& value);
std::optional<std::string> check_integer(const FieldRule& rule, std::int64_t value);
std::optional<std::string> check_number(const FieldRule& rule, double value);

}  // namespace outpost::envelope

#endif  // OUTPOST_COMMON_ENVELOPE_CONTRACT_H
