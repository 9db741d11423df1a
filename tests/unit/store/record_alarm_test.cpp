// record_alarm: what a successful call leaves in the database.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <set>

#include "outpost/store.h"
#include "raw_sqlite.h"
#include "store/migrations.h"
#include "store/outbox.h"
#include "store/store_internal.h"
#include "store_fixture.h"
#include "temp_dir.h"

using namespace outpost;
using namespace outpost::testing;

TEST_CASE(
    "a recorded alarm leaves one alarm row and one pending outbox row with the same event id") {
    TempDir dir;
    auto store = open_store(dir.file("o.db"), test_options());
    auto recorded = store->record_alarm(sample_alarm());
    REQUIRE_OK(recorded);
    CHECK_FALSE(recorded->duplicate);

    RawSqlite db(dir.file("o.db"));
    CHECK(db.integer("SELECT count(*) FROM outbox") == 1);
    CHECK(db.integer("SELECT count(*) FROM alarm_record") == 1);
    CHECK(db.text("SELECT event_id FROM alarm_record") == recorded->event_id);
    CHECK(db.text("SELECT event_id FROM outbox WHERE state = 0") == recorded->event_id);
    CHECK(db.integer("SELECT count(*) FROM outbox o JOIN alarm_record a ON a.id = o.id") == 1);
}

TEST_CASE("the stored envelope carries every schema field with the assigned id and sequence") {
    TempDir dir;
    ManualClock clock;
    auto store = open_store(dir.file("o.db"), test_options(&clock));
    auto recorded = store->record_alarm(sample_alarm("pump-7"));
    REQUIRE_OK(recorded);

    auto reader = store::core_of(*store).open_reader();
    REQUIRE_OK(reader);
    auto row = store::find_event(*reader, recorded->event_id);
    REQUIRE_OK(row);
    auto envelope = nlohmann::json::parse(row->envelope);
    CHECK(envelope["eventId"] == recorded->event_id);
    CHECK(envelope["eventType"] == "ALARM_RAISED");
    CHECK(envelope["schemaVersion"] == 1);
    CHECK(envelope["gatewayId"] == "gw-test");
    CHECK(envelope["deviceId"] == "pump-7");
    CHECK(envelope["seq"] == 1);
    CHECK(envelope["aggregateType"] == "alarm");
    CHECK(envelope["occurredAt"] == "2023-11-14T22:13:20.000Z");
    CHECK(envelope["bootId"] == clock.boot_id());
    CHECK(envelope["uptimeMs"] == clock.boot_ms());
    CHECK(envelope["payload"]["alarmType"] == "OVER_TEMPERATURE");
    CHECK(envelope["payload"]["severity"] == "critical");
    CHECK(envelope["payload"]["value"] == 97.5);
    CHECK(envelope["payload"]["unit"] == "degC");
    CHECK(row->topic_suffix == "alarm/pump-7");
    // Rebuilt from the stored fields: the same bytes on every read.
    CHECK(store::find_event(*reader, recorded->event_id)->envelope == row->envelope);
    RawSqlite db(dir.file("o.db"));
    CHECK(db.integer("SELECT count(*) FROM outbox WHERE envelope IS NULL") == 1);
}

TEST_CASE("event ids are canonical UUIDv7 and never repeat") {
    TempDir dir;
    auto store = open_store(dir.file("o.db"), test_options());
    std::set<std::string> ids;
    for (int i = 0; i < 200; ++i) {
        auto recorded = store->record_alarm(sample_alarm());
        REQUIRE_OK(recorded);
        const std::string& id = recorded->event_id;
        REQUIRE(id.size() == 36);
        CHECK(id[14] == '7');                                          // version nibble
        CHECK(std::string("89ab").find(id[19]) != std::string::npos);  // variant
        ids.insert(id);
    }
    CHECK(ids.size() == 200);
}

TEST_CASE("sequence numbers count from 1 per device and continue after reopen") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    {
        auto store = open_store(path, test_options());
        CHECK(store->record_alarm(sample_alarm("a"))->seq == 1);
        CHECK(store->record_alarm(sample_alarm("b"))->seq == 1);
        CHECK(store->record_alarm(sample_alarm("a"))->seq == 2);
    }
    auto store = open_store(path, test_options());
    CHECK(store->record_alarm(sample_alarm("a"))->seq == 3);
    CHECK(store->record_alarm(sample_alarm("b"))->seq == 2);
}

TEST_CASE(
    "recording again with the same idempotency key returns the first event and writes nothing") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    auto store = open_store(path, test_options());
    auto first = store->record_alarm(sample_alarm("pump-1", "fw-boot-7-alarm-42"));
    REQUIRE_OK(first);
    auto again = store->record_alarm(sample_alarm("pump-1", "fw-boot-7-alarm-42"));
    REQUIRE_OK(again);
    CHECK(again->duplicate);
    CHECK(again->event_id == first->event_id);
    CHECK(again->seq == first->seq);
    store.reset();

    auto reopened = open_store(path, test_options());
    auto after_restart = reopened->record_alarm(sample_alarm("pump-1", "fw-boot-7-alarm-42"));
    REQUIRE_OK(after_restart);
    CHECK(after_restart->event_id == first->event_id);
    RawSqlite db(path);
    CHECK(db.integer("SELECT count(*) FROM outbox") == 1);
    CHECK(db.integer("SELECT count(*) FROM alarm_record") == 1);
}

TEST_CASE("invalid alarms are refused with a reason and write nothing") {
    TempDir dir;
    auto store = open_store(dir.file("o.db"), test_options());
    auto expect_refused = [&](Alarm alarm, const std::string& reason_part) {
        auto result = store->record_alarm(alarm);
        REQUIRE_FALSE(result.is_ok());
        CHECK(result.status().code() == StatusCode::kInvalidArgument);
        CHECK_THAT(result.status().message(), Catch::Contains(reason_part));
    };
    Alarm bad = sample_alarm("pump/1");
    expect_refused(bad, "device_id");
    bad = sample_alarm();
    bad.device_id = "";
    expect_refused(bad, "device_id");
    bad = sample_alarm();
    bad.alarm_type = "";
    expect_refused(bad, "alarm_type");
    bad = sample_alarm();
    bad.text = "caf\xC3";  // truncated UTF-8
    expect_refused(bad, "UTF-8");
    bad = sample_alarm();
    bad.text = std::string(1025, 'x');
    expect_refused(bad, "text");
    bad = sample_alarm();
    bad.event_type = "raised";
    expect_refused(bad, "event_type");
    bad = sample_alarm();
    bad.value = std::numeric_limits<double>::infinity();
    expect_refused(bad, "finite");

    RawSqlite db(dir.file("o.db"));
    CHECK(db.integer("SELECT count(*) FROM outbox") == 0);
    CHECK(db.integer("SELECT count(*) FROM alarm_record") == 0);
}

TEST_CASE("an envelope larger than max_event_bytes is refused before anything is written") {
    TempDir dir;
    StoreOptions options = test_options();
    options.max_event_bytes = 600;
    auto store = open_store(dir.file("o.db"), options);
    Alarm alarm = sample_alarm();
    alarm.text = std::string(400, 'x');
    auto result = store->record_alarm(alarm);
    REQUIRE_FALSE(result.is_ok());
    CHECK(result.status().code() == StatusCode::kInvalidArgument);
    CHECK_THAT(result.status().message(), Catch::Contains("max_event_bytes"));
    CHECK(store->record_alarm(sample_alarm()).is_ok());  // the store still works
    RawSqlite db(dir.file("o.db"));
    CHECK(db.integer("SELECT count(*) FROM outbox") == 1);
}

TEST_CASE("an envelope that only its escapes take past max_event_bytes is refused") {
    TempDir dir;
    StoreOptions options = test_options();
    options.max_event_bytes = 1500;
    auto store = open_store(dir.file("o.db"), options);
    Alarm alarm = sample_alarm();
    // 300 bytes of text, 1,800 once each tab is written as \u0009.
    alarm.text = std::string(300, '\t');
    auto result = store->record_alarm(alarm);
    REQUIRE_FALSE(result.is_ok());
    CHECK(result.status().code() == StatusCode::kInvalidArgument);
    CHECK_THAT(result.status().message(), Catch::Contains("max_event_bytes"));
    alarm.text = std::string(100, '\t');  // 600 bytes escaped: fits
    CHECK(store->record_alarm(alarm).is_ok());
}

TEST_CASE("a database created for one gateway refuses to open as another") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    open_store(path, test_options());
    StoreOptions other = test_options();
    other.gateway_id = "gw-other";
    auto result = Store::open(path, other);
    REQUIRE_FALSE(result.is_ok());
    CHECK(result.status().code() == StatusCode::kInvalidArgument);
    CHECK_THAT(result.status().message(), Catch::Contains("gw-test"));
}

TEST_CASE("the database runs in WAL mode with the store's durability pragmas") {
    TempDir dir;
    auto store = open_store(dir.file("o.db"), test_options());
    REQUIRE_OK(store->record_alarm(sample_alarm()));
    RawSqlite db(dir.file("o.db"));
    CHECK(db.text("PRAGMA journal_mode") == "wal");
    CHECK(db.integer("PRAGMA user_version") == store::latest_schema_version());
    CHECK(store->open_report().created);
}

TEST_CASE(
    "an envelope with quotes, tab, line feed and non-ASCII text parses back to the same text") {
    TempDir dir;
    auto store = open_store(dir.file("o.db"), test_options());
    Alarm alarm = sample_alarm();
    alarm.text =
        "valve \"B\"\n\ttemp \\ 40\xC2\xB0"
        "C caf\xC3\xA9";
    alarm.unit =
        "\xC2\xB0"
        "C";
    alarm.value = 0.1;
    auto recorded = store->record_alarm(alarm);
    REQUIRE_OK(recorded);
    auto reader = store::core_of(*store).open_reader();
    auto row = store::find_event(*reader, recorded->event_id);
    REQUIRE_OK(row);
    auto envelope = nlohmann::json::parse(row->envelope, nullptr, false);
    REQUIRE_FALSE(envelope.is_discarded());
    CHECK(envelope["payload"]["text"] == alarm.text);
    CHECK(envelope["payload"]["unit"] == alarm.unit);
    CHECK(envelope["payload"]["value"] == 0.1);
    CHECK(envelope["seq"] == 1);
}
