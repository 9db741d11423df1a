#include "ingest/protocol.h"

#include <set>

namespace outpost::ingest {

namespace {

bool read_string(const nlohmann::json& object, const char* name, bool required, std::string& target,
                 WireError& error) {
    auto found = object.find(name);
    if (found == object.end() || found->is_null()) {
        if (!required) return true;
        error = {kInvalidRequest, std::string("alarm.") + name + " is required"};
        return false;
    }
    if (!found->is_string()) {
        error = {kInvalidRequest, std::string("alarm.") + name + " must be a string"};
        return false;
    }
    target = found->get<std::string>();
    return true;
}

}  // namespace

std::optional<Alarm> alarm_from_json(const nlohmann::json& object, WireError& error) {
    static const std::set<std::string> kFields = {"deviceId", "alarmType",     "eventType",
                                                  "severity", "value",         "unit",
                                                  "text",     "idempotencyKey"};
    if (!object.is_object()) {
        error = {kInvalidRequest, "\"alarm\" must be a JSON object"};
        return std::nullopt;
    }
    for (const auto& item : object.items()) {
        if (kFields.count(item.key()) == 0) {
            error = {kInvalidRequest, "unknown field alarm." + item.key() +
                                          " (fields: deviceId, alarmType, eventType, severity, "
                                          "value, unit, text, idempotencyKey)"};
            return std::nullopt;
        }
    }
    Alarm alarm;
    std::string severity;
    if (!read_string(object, "deviceId", true, alarm.device_id, error) ||
        !read_string(object, "alarmType", true, alarm.alarm_type, error) ||
        !read_string(object, "eventType", false, alarm.event_type, error) ||
        !read_string(object, "severity", false, severity, error) ||
        !read_string(object, "unit", false, alarm.unit, error) ||
        !read_string(object, "text", false, alarm.text, error) ||
        !read_string(object, "idempotencyKey", false, alarm.idempotency_key, error)) {
        return std::nullopt;
    }
    if (!severity.empty()) {
        auto parsed = parse_severity(severity);
        if (!parsed) {
            error = {kInvalidRequest,
                     "alarm.severity must be info, warning, minor, major or "
                     "critical"};
            return std::nullopt;
        }
        alarm.severity = *parsed;
    }
    auto value = object.find("value");
    if (value != object.end() && !value->is_null()) {
        if (!value->is_number()) {
            error = {kInvalidRequest, "alarm.value must be a number or null"};
            return std::nullopt;
        }
        alarm.value = value->get<double>();
    }
    return alarm;
}

nlohmann::json raise_alarm_request(const Alarm& alarm) {
    nlohmann::json object = {{"deviceId", alarm.device_id},
                             {"alarmType", alarm.alarm_type},
                             {"eventType", alarm.event_type},
                             {"severity", severity_name(alarm.severity)}};
    if (alarm.value) object["value"] = *alarm.value;
    if (!alarm.unit.empty()) object["unit"] = alarm.unit;
    if (!alarm.text.empty()) object["text"] = alarm.text;
    if (!alarm.idempotency_key.empty()) object["idempotencyKey"] = alarm.idempotency_key;
    return {{"op", "raise_alarm"}, {"alarm", object}};
}

nlohmann::json recorded_answer(const RecordedEvent& recorded) {
    return {{"ok", true},
            {"eventId", recorded.event_id},
            {"deviceId", recorded.device_id},
            {"seq", recorded.seq},
            {"duplicate", recorded.duplicate}};
}

nlohmann::json error_answer(const std::string& code, const std::string& message) {
    return {{"ok", false}, {"error", {{"code", code}, {"message", message}}}};
}

nlohmann::json error_answer(const Status& status) {
    return error_answer(status_code_name(status.code()), status.message());
}

std::string to_line(const nlohmann::json& document) {
    return document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace outpost::ingest
