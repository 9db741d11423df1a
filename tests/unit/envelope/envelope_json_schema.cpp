#include "envelope_json_schema.h"

#include <limits>
#include <nlohmann/json.hpp>

#include "common/envelope_contract.h"

namespace outpost::envelope {
namespace {

using Schema = nlohmann::ordered_json;  // keeps the keywords in the order written

const char* pattern_of(TextRule text) {
    switch (text) {
        case TextRule::kUuidV7:
            return "^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$";
        case TextRule::kEventType:
            return "^[A-Z][A-Z0-9_]*$";
        case TextRule::kIdentifier:
            return "^[A-Za-z0-9._-]*$";
        case TextRule::kLabel:
            return "^[^\\u0000-\\u001f\\u007f-\\u009f]*$";
        case TextRule::kFreeText:
            return "^[^\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f]*$";
        case TextRule::kDateTime:
            return "^[0-9]{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])[Tt]([01][0-9]|2[0-3]):"
                   "[0-5][0-9]:([0-5][0-9]|60)(\\.[0-9]+)?([Zz]|[+-]([01][0-9]|2[0-3]):[0-5][0-9])"
                   "$";
        case TextRule::kNone:
        case TextRule::kSeverity:
            break;
    }
    return nullptr;
}

Schema properties_of(const std::vector<FieldRule>& fields);

Schema render_field(const FieldRule& rule) {
    Schema field;
    field["description"] = rule.description;
    switch (rule.type) {
        case FieldType::kString:
            field["type"] = "string";
            if (rule.text == TextRule::kSeverity) {
                field["enum"] = Schema::array();
                for (const char* name : kSeverityNames) field["enum"].push_back(name);
            }
            if (rule.text == TextRule::kDateTime) field["format"] = "date-time";
            if (const char* pattern = pattern_of(rule.text)) field["pattern"] = pattern;
            if (rule.min_length != 0) field["minLength"] = rule.min_length;
            if (rule.max_length != 0) field["maxLength"] = rule.max_length;
            break;
        case FieldType::kInteger:
            field["type"] = "integer";
            if (rule.min_integer == rule.max_integer) {
                field["const"] = rule.min_integer;
            } else {
                field["minimum"] = rule.min_integer;
                field["maximum"] = rule.max_integer;
            }
            break;
        case FieldType::kNumber:
            field["type"] = "number";
            field["minimum"] = std::numeric_limits<double>::lowest();
            field["maximum"] = std::numeric_limits<double>::max();
            break;
        case FieldType::kObject:
            field["type"] = "object";
            field["properties"] = properties_of(payload_fields());
            break;
    }
    return field;
}

Schema properties_of(const std::vector<FieldRule>& fields) {
    Schema properties = Schema::object();
    for (const FieldRule& rule : fields) properties[rule.name] = render_field(rule);
    return properties;
}

}  // namespace

std::string render_json_schema() {
    Schema schema;
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema";
    schema["$id"] = "urn:outpost:event-envelope:" + std::to_string(kSchemaVersion);
    schema["title"] = "Outpost event envelope, schemaVersion " + std::to_string(kSchemaVersion);
    schema["description"] =
        "One event announced by a gateway's outbox. Published on "
        "outpost/<gatewayId>/alarm/<deviceId> (alarms) or outpost/<gatewayId>/event/<deviceId> "
        "at MQTT QoS 1; the bridge forwards it to RocketMQ with KEYS = eventId. Duplicates are "
        "possible (at-least-once): consumers deduplicate on eventId; seq lets them detect gaps "
        "and reordering per device. Beyond what JSON Schema can state, the bridge refuses a key "
        "repeated in any object, a byte-order mark before the JSON, nesting deeper than " +
        std::to_string(kMaxDepth) +
        " objects/arrays, and integers written with a fraction or exponent. "
        "Rendered from src/common/envelope_contract.cpp: edit the table there, not this file.";
    schema["type"] = "object";
    schema["additionalProperties"] = false;
    schema["required"] = Schema::array();
    for (const FieldRule& rule : envelope_fields()) {
        if (rule.required) schema["required"].push_back(rule.name);
    }
    schema["properties"] = properties_of(envelope_fields());
    return schema.dump(2) + "\n";
}

}  // namespace outpost::envelope
