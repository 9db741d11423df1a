// What the store refuses from the application, by the envelope contract
// (common/envelope_contract.h) the bridge applies too: whatever the store
// accepts, the bridge forwards, and what the bridge would quarantine never
// enters the outbox. Each refusal writes nothing.
#include <catch2/catch.hpp>
#include <string>

#include "outpost/store.h"
#include "raw_sqlite.h"
#include "store_fixture.h"
#include "temp_dir.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

struct Fixture {
    TempDir dir;
    std::unique_ptr<Store> store = open_store(dir.file("o.db"), test_options());

    // The store's verdict on `alarm`: "ok", or its refusal message.
    std::string record(const Alarm& alarm) {
        auto result = store->record_alarm(alarm);
        if (result.is_ok()) return "ok";
        CHECK(result.status().code() == StatusCode::kInvalidArgument);
        return result.status().message();
    }

    std::string enqueue(const Event& event) {
        auto result = store->transact([&](Transaction& tx) { return tx.enqueue(event).status(); });
        if (result.is_ok()) return "ok";
        CHECK(result.status().code() == StatusCode::kInvalidArgument);
        return result.status().message();
    }

    int64_t outbox_rows() {
        return RawSqlite(dir.file("o.db")).integer("SELECT count(*) FROM outbox");
    }
};

Event valve_event(const std::string& payload_json = "{\"position\":42}") {
    return Event{"VALVE_OPENED", "valve-1", "valve", "v-17", payload_json, ""};
}

std::string repeat(const std::string& unit, int times) {
    std::string out;
    for (int i = 0; i < times; ++i) out += unit;
    return out;
}

}  // namespace

TEST_CASE("a NUL or other control character in alarm_type, unit or text is refused") {
    Fixture f;
    const std::string controls[] = {std::string("\0", 1), "\x1b", "\x7f", "\xc2\x85", "\r"};
    for (const std::string& control : controls) {
        INFO("control byte " << static_cast<int>(static_cast<unsigned char>(control.back())));
        Alarm alarm = sample_alarm();
        alarm.alarm_type = "OVER" + control + "TEMP";
        CHECK_THAT(f.record(alarm), Catch::Contains("alarm_type holds control character"));
        alarm = sample_alarm();
        alarm.unit = "deg" + control;
        CHECK_THAT(f.record(alarm), Catch::Contains("unit holds control character"));
        alarm = sample_alarm();
        alarm.text = "hot" + control + "now";
        CHECK_THAT(f.record(alarm), Catch::Contains("text holds control character"));
    }
    CHECK_THAT(f.record([] {
        Alarm alarm = sample_alarm();
        alarm.alarm_type = std::string("OVER\0TEMP", 9);
        return alarm;
    }()),
               Catch::Contains("U+0000"));
    CHECK(f.outbox_rows() == 0);
}

TEST_CASE("an alarm's free text keeps tab and line feed; labels refuse them") {
    Fixture f;
    Alarm alarm = sample_alarm();
    alarm.text = "line one\n\tline two";
    CHECK(f.record(alarm) == "ok");
    alarm = sample_alarm();
    alarm.alarm_type = "OVER\tTEMP";
    CHECK_THAT(f.record(alarm), Catch::Contains("alarm_type"));
    alarm = sample_alarm();
    alarm.unit = "deg\nC";
    CHECK_THAT(f.record(alarm), Catch::Contains("unit"));
    alarm = sample_alarm();
    alarm.text = "\xc2\xa0non-breaking space and \xe2\x80\xa8 line separator are text";
    CHECK(f.record(alarm) == "ok");
    CHECK(f.outbox_rows() == 2);
}

TEST_CASE("lengths count characters, as the schema's maxLength does, not bytes") {
    Fixture f;
    Alarm alarm = sample_alarm();
    alarm.alarm_type = repeat("\xc3\xa9", 64);  // 64 characters, 128 bytes
    alarm.unit = repeat("\xc2\xb5", 32);
    alarm.text = repeat("\xf0\x9f\x94\xa5", 1024);  // 1024 characters, 4096 bytes
    CHECK(f.record(alarm) == "ok");
    alarm.alarm_type += "\xc3\xa9";
    CHECK_THAT(f.record(alarm),
               Catch::Contains("alarm_type must have 1 to 64 characters (has 65)"));
    alarm = sample_alarm();
    alarm.text = repeat("x", 1025);
    CHECK_THAT(f.record(alarm), Catch::Contains("text must have 0 to 1024 characters"));
    CHECK(f.outbox_rows() == 1);
}

TEST_CASE("an event's aggregate_type and aggregate_id refuse control characters") {
    Fixture f;
    Event event = valve_event();
    event.aggregate_type = std::string("valve\0", 6);
    CHECK_THAT(f.enqueue(event), Catch::Contains("aggregate_type holds control character U+0000"));
    event = valve_event();
    event.aggregate_id = "v-17\n";
    CHECK_THAT(f.enqueue(event), Catch::Contains("aggregate_id holds control character U+000A"));
    CHECK(f.outbox_rows() == 0);
}

TEST_CASE("an event payload that repeats a key is refused, not stored with the last value") {
    Fixture f;
    CHECK_THAT(f.enqueue(valve_event(R"({"position":1,"position":2,"position":3})")),
               Catch::Contains("payload_json repeats key \"position\""));
    CHECK_THAT(f.enqueue(valve_event(R"({"a":{"severity":"info","severity":"critical"}})")),
               Catch::Contains("repeats key \"severity\""));
    CHECK(f.outbox_rows() == 0);
}

TEST_CASE("an event payload that starts with a byte-order mark is refused") {
    Fixture f;
    CHECK_THAT(f.enqueue(valve_event("\xEF\xBB\xBF{\"position\":42}")),
               Catch::Contains("byte-order mark"));
    CHECK(f.outbox_rows() == 0);
}

TEST_CASE("an event payload whose alarm members break the contract is refused") {
    Fixture f;
    CHECK_THAT(f.enqueue(valve_event(R"({"severity":"urgent"})")),
               Catch::Contains("payload.severity"));
    CHECK_THAT(f.enqueue(valve_event(R"({"value":"hot"})")), Catch::Contains("payload.value"));
    CHECK_THAT(f.enqueue(valve_event(R"({"alarmType":"A\u0000B"})")),
               Catch::Contains("payload.alarmType holds control character U+0000"));
    CHECK_THAT(f.enqueue(valve_event(R"({"text":"a\rb"})")), Catch::Contains("payload.text"));
    CHECK_THAT(f.enqueue(valve_event(R"({"value":1e400})")), Catch::Contains("payload_json"));
    CHECK_THAT(f.enqueue(valve_event("[1,2]")), Catch::Contains("payload must be an object"));
    // Members the contract does not name are the application's business.
    CHECK(f.enqueue(valve_event(R"({"note":"a\u0000b","severity":"minor","value":-0.5})")) == "ok");
    CHECK(f.outbox_rows() == 1);
}

TEST_CASE("an event payload nests at most one level less than an envelope may") {
    Fixture f;
    auto nested = [](int depth) {
        std::string text;
        for (int i = 0; i < depth; ++i) text += "{\"a\":";
        text += "1";
        for (int i = 0; i < depth; ++i) text += "}";
        return text;
    };
    CHECK(f.enqueue(valve_event(nested(15))) == "ok");  // the envelope nests 16 deep
    CHECK_THAT(f.enqueue(valve_event(nested(16))), Catch::Contains("deeper than 15"));
    CHECK(f.outbox_rows() == 1);
}
