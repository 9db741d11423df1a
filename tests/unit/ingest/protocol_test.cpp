// The ingestion protocol without a socket: the alarm object's fields and
// every refusal alarm_from_json makes, the answers, and RequestHandler::handle
// giving each wire error code for its case (firmware_glue/ingest-protocol.md).
// The store is a real one.
#include "ingest/protocol.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "ingest/request_handler.h"
#include "raw_sqlite.h"
#include "store_fixture.h"
#include "temp_dir.h"

using nlohmann::json;
using outpost::Alarm;
using outpost::Severity;
using outpost::StatusCode;
using outpost::ingest::WireError;
using namespace outpost::testing;

namespace {

json alarm_object(const std::string& extra_fields = "") {
    return json::parse(R"({"deviceId":"pump-1","alarmType":"OVER_TEMPERATURE")" + extra_fields +
                       "}");
}

// The refusal alarm_from_json gives for `object`; fails the test if it
// accepts it.
WireError refusal_of(const json& object) {
    WireError error;
    auto alarm = outpost::ingest::alarm_from_json(object, error);
    INFO(object.dump());
    CHECK_FALSE(alarm.has_value());
    return error;
}

class HandlerRig final {
  public:
    explicit HandlerRig(outpost::ingest::StatusProvider status = {})
        : store_(open_store(dir_.file("store.db"), test_options())),
          handler_(*store_, std::move(status), [] { return outpost::ingest::ServerStats{}; }) {}

    outpost::ingest::HandledRequest handle(const std::string& line) const {
        return handler_.handle(line);
    }
    std::string code_for(const std::string& line) const {
        const json answer = handle(line).answer;
        INFO(answer.dump());
        CHECK(answer["ok"] == false);
        return answer["error"].value("code", "");
    }
    int64_t alarms_stored() {
        RawSqlite db(dir_.file("store.db"), SQLITE_OPEN_READONLY);
        return db.integer("SELECT count(*) FROM alarm_record");
    }

  private:
    TempDir dir_;
    std::unique_ptr<outpost::Store> store_;
    outpost::ingest::RequestHandler handler_;
};

std::string raise(const std::string& alarm_fields) {
    return R"({"op":"raise_alarm","alarm":{)" + alarm_fields + "}}";
}

const std::string kValidFields = R"("deviceId":"pump-1","alarmType":"OVER_TEMPERATURE")";

}  // namespace

TEST_CASE("an alarm object with every field reads into an Alarm") {
    WireError error;
    auto alarm = outpost::ingest::alarm_from_json(
        alarm_object(R"(,"eventType":"ALARM_CLEARED","severity":"minor","value":-3.25,)"
                     R"("unit":"bar","text":"pressure back","idempotencyKey":"boot-1/7")"),
        error);
    REQUIRE(alarm.has_value());
    CHECK(alarm->device_id == "pump-1");
    CHECK(alarm->alarm_type == "OVER_TEMPERATURE");
    CHECK(alarm->event_type == "ALARM_CLEARED");
    CHECK(alarm->severity == Severity::kMinor);
    REQUIRE(alarm->value.has_value());
    CHECK(*alarm->value == -3.25);
    CHECK(alarm->unit == "bar");
    CHECK(alarm->text == "pressure back");
    CHECK(alarm->idempotency_key == "boot-1/7");
}

TEST_CASE("optional fields may be absent or null and keep their defaults") {
    WireError error;
    auto alarm = outpost::ingest::alarm_from_json(
        alarm_object(R"(,"eventType":null,"severity":null,"value":null,"unit":null)"), error);
    REQUIRE(alarm.has_value());
    const Alarm defaults;
    CHECK(alarm->event_type == defaults.event_type);
    CHECK(alarm->severity == defaults.severity);
    CHECK_FALSE(alarm->value.has_value());
    CHECK(alarm->unit.empty());
}

TEST_CASE("raise_alarm_request is read back by alarm_from_json unchanged") {
    Alarm alarm = sample_alarm("pump-9", "key-1");
    alarm.event_type = "ALARM_CLEARED";
    const json request = outpost::ingest::raise_alarm_request(alarm);
    CHECK(request["op"] == "raise_alarm");
    WireError error;
    auto back = outpost::ingest::alarm_from_json(request["alarm"], error);
    REQUIRE(back.has_value());
    CHECK(back->device_id == alarm.device_id);
    CHECK(back->alarm_type == alarm.alarm_type);
    CHECK(back->event_type == alarm.event_type);
    CHECK(back->severity == alarm.severity);
    CHECK(back->value == alarm.value);
    CHECK(back->unit == alarm.unit);
    CHECK(back->text == alarm.text);
    CHECK(back->idempotency_key == alarm.idempotency_key);
}

TEST_CASE("each malformed alarm object is refused as invalid_request, naming the field") {
    struct Case {
        const char* what;
        json object;
        const char* names;
    };
    const Case cases[] = {
        {"not an object", json::array({1, 2}), "\"alarm\" must be a JSON object"},
        {"missing deviceId", json::parse(R"({"alarmType":"X"})"), "alarm.deviceId is required"},
        {"null deviceId", json::parse(R"({"deviceId":null,"alarmType":"X"})"),
         "alarm.deviceId is required"},
        {"missing alarmType", json::parse(R"({"deviceId":"d"})"), "alarm.alarmType is required"},
        {"deviceId a number", json::parse(R"({"deviceId":7,"alarmType":"X"})"),
         "alarm.deviceId must be a string"},
        {"unit an object", alarm_object(R"(,"unit":{})"), "alarm.unit must be a string"},
        {"text an array", alarm_object(R"(,"text":["a"])"), "alarm.text must be a string"},
        {"idempotencyKey a bool", alarm_object(R"(,"idempotencyKey":true)"),
         "alarm.idempotencyKey must be a string"},
        {"eventType a number", alarm_object(R"(,"eventType":1)"),
         "alarm.eventType must be a string"},
        {"severity a number", alarm_object(R"(,"severity":3)"), "alarm.severity must be a string"},
        {"unknown severity", alarm_object(R"(,"severity":"apocalyptic")"),
         "alarm.severity must be info, warning, minor, major or critical"},
        {"value a string", alarm_object(R"(,"value":"hot")"),
         "alarm.value must be a number or null"},
        {"value a bool", alarm_object(R"(,"value":false)"), "alarm.value must be a number or null"},
        {"misspelt field", alarm_object(R"(,"device_id":"d")"), "unknown field alarm.device_id"},
    };
    for (const Case& c : cases) {
        INFO(c.what);
        const WireError error = refusal_of(c.object);
        CHECK(error.code == outpost::ingest::kInvalidRequest);
        CHECK(error.message.find(c.names) != std::string::npos);
    }
}

TEST_CASE("answers have the documented shape, and a line never breaks on bad UTF-8") {
    const json error = outpost::ingest::error_answer("unknown_op", "no such op");
    CHECK(error ==
          json::parse(R"({"ok":false,"error":{"code":"unknown_op","message":"no such op"}})"));
    const json from_status = outpost::ingest::error_answer(
        outpost::Status::error(StatusCode::kStoreFull, "quota reached"));
    CHECK(from_status["error"]["code"] == "store_full");
    CHECK(from_status["error"]["message"] == "quota reached");

    outpost::RecordedEvent recorded;
    recorded.event_id = "0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b";
    recorded.device_id = "pump-1";
    recorded.seq = 4;
    recorded.duplicate = true;
    CHECK(outpost::ingest::recorded_answer(recorded) ==
          json::parse(R"({"ok":true,"eventId":"0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b",)"
                      R"("deviceId":"pump-1","seq":4,"duplicate":true})"));

    const std::string line = outpost::ingest::to_line(
        outpost::ingest::error_answer("invalid_utf8", std::string("caf\xc3\x28")));
    CHECK(line.back() == '\n');
    CHECK(line.find('\n') == line.size() - 1);
    CHECK(json::parse(line)["ok"] == false);
}

TEST_CASE("every wire error code of the request handler has its case, and nothing is stored") {
    HandlerRig rig;
    struct Case {
        const char* what;
        std::string line;
        const char* code;
    };
    const Case cases[] = {
        {"an empty line", "", "invalid_request"},
        {"a lone carriage return", "\r", "invalid_request"},
        {"invalid UTF-8", raise(kValidFields + ",\"text\":\"caf\xc3\x28\""), "invalid_utf8"},
        {"nesting deeper than 16", std::string(17, '[') + std::string(17, ']'), "invalid_request"},
        {"not JSON", "hello outpostd", "invalid_json"},
        {"truncated JSON", R"({"op":"raise_alarm","alarm":{"deviceId":"pu)", "invalid_json"},
        {"a number beyond double range", raise(kValidFields + R"(,"value":1e999)"), "invalid_json"},
        {"an array", "[1,2,3]", "invalid_request"},
        {"no op", R"({"alarm":{}})", "invalid_request"},
        {"op not a string", R"({"op":7})", "invalid_request"},
        {"an unknown op", R"({"op":"self_destruct"})", "unknown_op"},
        {"an unknown field in ping", R"({"op":"ping","force":true})", "invalid_request"},
        {"an unknown field in raise_alarm", R"({"op":"raise_alarm","alarm":{},"x":1})",
         "invalid_request"},
        {"raise_alarm without alarm", R"({"op":"raise_alarm"})", "invalid_request"},
        {"a malformed alarm", raise(R"("deviceId":"pump-1")"), "invalid_request"},
        // Checked by the store, answered with its status code name.
        {"a deviceId that cannot be a topic level", raise(R"("deviceId":"a/b","alarmType":"X")"),
         "invalid_argument"},
    };
    for (const Case& c : cases) {
        INFO(c.what);
        CHECK(rig.code_for(c.line) == c.code);
        CHECK_FALSE(rig.handle(c.line).alarm_recorded);
    }
    CHECK(rig.alarms_stored() == 0);
}

TEST_CASE("a status provider that throws is answered internal, and the handler goes on") {
    HandlerRig rig([]() -> json { throw std::runtime_error("status exploded"); });
    const json answer = rig.handle(R"({"op":"status"})").answer;
    CHECK(answer["error"]["code"] == "internal");
    CHECK(answer["error"]["message"].get<std::string>().find("status exploded") !=
          std::string::npos);
    CHECK(rig.handle(R"({"op":"ping"})").answer == json::parse(R"({"ok":true})"));
}

TEST_CASE("a valid raise_alarm is stored and answered with its eventId and seq") {
    HandlerRig rig;
    const auto handled = rig.handle(raise(kValidFields + R"(,"idempotencyKey":"k-1")"));
    CHECK(handled.alarm_recorded);
    CHECK(handled.answer["ok"] == true);
    CHECK(handled.answer["seq"] == 1);
    CHECK(handled.answer["duplicate"] == false);
    const auto again = rig.handle(raise(kValidFields + R"(,"idempotencyKey":"k-1")"));
    CHECK(again.answer["duplicate"] == true);
    CHECK(again.answer["eventId"] == handled.answer["eventId"]);
    CHECK(rig.alarms_stored() == 1);
}
