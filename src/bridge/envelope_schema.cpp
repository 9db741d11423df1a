// schema/event.schema.json, schemaVersion 1, as code. Keep the two in step:
// tests/unit/bridge/envelope_corpus_test.cpp holds one case per rule.
#include <cmath>
#include <cstddef>
#include <set>

#include "bridge/envelope_check.h"
#include "common/text_checks.h"

namespace outpost::bridge {
namespace {

using nlohmann::json;

Rejection violation(const std::string& field, const std::string& what) {
    return Rejection{QuarantineReason::kSchemaViolation, field + " " + what};
}

// JSON Schema lengths count code points; the payload is valid UTF-8 here.
std::size_t code_points(const std::string& text) {
    std::size_t count = 0;
    for (char c : text) {
        if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++count;
    }
    return count;
}

// JSON Schema "integer": any number with no fractional part (1.0 included).
bool is_integer(const json& value) {
    if (value.is_number_integer()) return true;
    if (!value.is_number_float()) return false;
    const double number = value.get<double>();
    return std::isfinite(number) && std::floor(number) == number;
}

std::optional<Rejection> check_string(const json& object, const char* name, std::size_t min,
                                      std::size_t max, bool required) {
    auto it = object.find(name);
    if (it == object.end()) {
        if (required) return violation(name, "is required");
        return std::nullopt;
    }
    if (!it->is_string()) return violation(name, "must be a string");
    const std::size_t length = code_points(it->get<std::string>());
    if (length < min || length > max) {
        return violation(name, "must have " + std::to_string(min) + " to " + std::to_string(max) +
                                   " characters (has " + std::to_string(length) + ")");
    }
    return std::nullopt;
}

bool digits(const std::string& text, std::size_t from, std::size_t count) {
    if (from + count > text.size()) return false;
    for (std::size_t i = from; i < from + count; ++i) {
        if (text[i] < '0' || text[i] > '9') return false;
    }
    return true;
}

// RFC 3339 date-time: YYYY-MM-DDTHH:MM:SS[.frac](Z|+HH:MM|-HH:MM).
bool is_rfc3339(const std::string& text) {
    if (!digits(text, 0, 4) || text.size() < 20 || text[4] != '-' || !digits(text, 5, 2) ||
        text[7] != '-' || !digits(text, 8, 2) || (text[10] != 'T' && text[10] != 't') ||
        !digits(text, 11, 2) || text[13] != ':' || !digits(text, 14, 2) || text[16] != ':' ||
        !digits(text, 17, 2)) {
        return false;
    }
    const int month = std::stoi(text.substr(5, 2));
    const int day = std::stoi(text.substr(8, 2));
    if (month < 1 || month > 12 || day < 1 || day > 31 || std::stoi(text.substr(11, 2)) > 23 ||
        std::stoi(text.substr(14, 2)) > 59 || std::stoi(text.substr(17, 2)) > 60) {
        return false;
    }
    std::size_t at = 19;
    if (at < text.size() && text[at] == '.') {
        const std::size_t start = ++at;
        while (at < text.size() && text[at] >= '0' && text[at] <= '9') ++at;
        if (at == start) return false;
    }
    const std::string zone = text.substr(at);
    if (zone == "Z" || zone == "z") return true;
    return zone.size() == 6 && (zone[0] == '+' || zone[0] == '-') && digits(zone, 1, 2) &&
           zone[3] == ':' && digits(zone, 4, 2);
}

std::optional<Rejection> check_payload(const json& payload) {
    if (!payload.is_object()) return violation("payload", "must be an object");
    if (auto bad = check_string(payload, "alarmType", 1, 64, false)) return bad;
    if (auto it = payload.find("severity"); it != payload.end()) {
        static const std::set<std::string> kSeverities = {"info", "warning", "minor", "major",
                                                          "critical"};
        if (!it->is_string() || kSeverities.count(it->get<std::string>()) == 0) {
            return violation("payload.severity",
                             "must be one of info, warning, minor, major, critical");
        }
    }
    if (auto it = payload.find("value"); it != payload.end() && !it->is_number()) {
        return violation("payload.value", "must be a number");
    }
    if (auto bad = check_string(payload, "unit", 0, 32, false)) {
        bad->detail = "payload." + bad->detail;
        return bad;
    }
    if (auto bad = check_string(payload, "text", 0, 1024, false)) {
        bad->detail = "payload." + bad->detail;
        return bad;
    }
    return std::nullopt;
}

}  // namespace

std::optional<Rejection> check_envelope_schema(const json& document) {
    if (!document.is_object()) return violation("envelope", "must be a JSON object");
    static const std::set<std::string> kFields = {
        "eventId",       "eventType",   "schemaVersion", "gatewayId", "deviceId", "seq",
        "aggregateType", "aggregateId", "occurredAt",    "bootId",    "uptimeMs", "payload"};
    for (auto it = document.begin(); it != document.end(); ++it) {
        if (kFields.count(it.key()) == 0) return violation(it.key(), "is not an envelope field");
    }
    for (const std::string& name : kFields) {
        if (document.find(name) == document.end()) return violation(name, "is required");
    }
    const json& event_id = document["eventId"];
    if (!event_id.is_string() || !is_lowercase_uuid_v7(event_id.get<std::string>())) {
        return violation("eventId", "must be a lower-case UUIDv7 string");
    }
    const json& event_type = document["eventType"];
    if (!event_type.is_string() || !is_valid_event_type(event_type.get<std::string>())) {
        return violation("eventType", "must match [A-Z][A-Z0-9_]{0,63}");
    }
    const json& version = document["schemaVersion"];
    if (!version.is_number() || version.get<double>() != 1.0) {
        return violation("schemaVersion", "must be 1");
    }
    for (const char* name : {"gatewayId", "deviceId"}) {
        const json& id = document[name];
        if (!id.is_string() || !is_valid_identifier(id.get<std::string>())) {
            return violation(name, "must match [A-Za-z0-9._-]{1,64}");
        }
    }
    const json& seq = document["seq"];
    if (!is_integer(seq) || seq.get<double>() < 1) {
        return violation("seq", "must be an integer >= 1");
    }
    if (auto bad = check_string(document, "aggregateType", 1, 64, true)) return bad;
    if (auto bad = check_string(document, "aggregateId", 1, 256, true)) return bad;
    const json& occurred = document["occurredAt"];
    if (!occurred.is_string() || !is_rfc3339(occurred.get<std::string>())) {
        return violation("occurredAt", "must be an RFC 3339 date-time string");
    }
    if (auto bad = check_string(document, "bootId", 1, 64, true)) return bad;
    const json& uptime = document["uptimeMs"];
    if (!is_integer(uptime) || uptime.get<double>() < 0) {
        return violation("uptimeMs", "must be an integer >= 0");
    }
    return check_payload(document["payload"]);
}

}  // namespace outpost::bridge
