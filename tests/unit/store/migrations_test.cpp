// Schema versions: fresh databases, upgrades, and refusing the future.
#include "store/migrations.h"

#include <catch2/catch.hpp>
#include <string>

#include "outpost/store.h"
#include "outpost/store_admin.h"
#include "raw_sqlite.h"
#include "store_fixture.h"
#include "temp_dir.h"

using namespace outpost;
using namespace outpost::testing;

TEST_CASE("a new database is created at the latest schema version") {
    TempDir dir;
    auto store = open_store(dir.file("o.db"), test_options());
    CHECK(store->open_report().from_version == 0);
    CHECK(store->open_report().to_version == store::latest_schema_version());
    RawSqlite db(dir.file("o.db"));
    CHECK(db.integer("PRAGMA user_version") == store::latest_schema_version());
    CHECK(db.integer("SELECT epoch FROM lease") == 0);
}

TEST_CASE("an existing database at version 0 is upgraded and keeps its own tables") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    {
        RawSqlite db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
        db.exec("CREATE TABLE firmware_settings (k TEXT, v TEXT);"
                "INSERT INTO firmware_settings VALUES ('mode', 'eco')");
    }
    auto store = open_store(path, test_options());
    CHECK(store->open_report().from_version == 0);
    REQUIRE_OK(store->record_alarm(sample_alarm()));
    RawSqlite db(path);
    CHECK(db.text("SELECT v FROM firmware_settings") == "eco");
    CHECK(db.integer("PRAGMA user_version") == store::latest_schema_version());
}

TEST_CASE("a version 1 database with DEAD and replayed rows upgrades in place and keeps them") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    const std::string dead_id = "018f0000-0000-7000-8000-000000000001";
    const std::string replayed_id = "018f0000-0000-7000-8000-000000000002";
    const std::string pending_id = "018f0000-0000-7000-8000-000000000003";
    {
        // What schema 1 wrote: migration 001 alone, and rows as it stored them.
        RawSqlite db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
        REQUIRE(std::string(store::kMigrations.front().name) == "001_initial.sql");
        db.exec(store::kMigrations.front().sql);
        db.exec(
            "PRAGMA user_version = 1;"
            "INSERT INTO meta (key, value) VALUES ('gateway_id', 'gw-test');"
            "INSERT INTO outbox (id, event_id, device_id, seq, event_type, topic_suffix,"
            " envelope, state, attempts, last_error, replay_count, replayed_at_ms,"
            " replay_reason) VALUES"
            " (1, '" +
            dead_id +
            "', 'pump-1', 1, 'VALVE_STUCK', 'event/pump-1', '{}', 2, 3,"
            "  'PUBACK 0x87', 0, NULL, NULL),"
            " (2, '" +
            replayed_id +
            "', 'pump-1', 2, 'VALVE_STUCK', 'event/pump-1', '{}', 0,"
            "  0, 'PUBACK 0x87', 1, 1700000000000, 'ACL fixed'),"
            " (3, '" +
            pending_id +
            "', 'pump-2', 1, 'VALVE_STUCK', 'event/pump-2', '{}', 0,"
            "  0, NULL, 0, NULL, NULL)");
    }
    auto store = open_store(path, test_options());
    CHECK(store->open_report().from_version == 1);
    CHECK(store->open_report().to_version == store::latest_schema_version());
    StoreAdmin admin(*store);
    auto dead = admin.find_event(dead_id);
    REQUIRE_OK(dead);
    CHECK(dead->state == EventState::kDead);
    CHECK(dead->attempts == 3);
    CHECK(dead->last_error == "PUBACK 0x87");
    CHECK(dead->replay_actor.empty());
    auto replayed = admin.find_event(replayed_id);
    REQUIRE_OK(replayed);
    CHECK(replayed->state == EventState::kPending);
    CHECK(replayed->replay_count == 1);
    CHECK(replayed->replay_reason == "ACL fixed");
    CHECK(replayed->replay_actor.empty());  // schema 1 did not record it
    CHECK(admin.find_event(pending_id)->state == EventState::kPending);

    REQUIRE_OK(admin.replay_event(dead_id, "quota raised", "outpostctl by root (uid 0)"));
    CHECK(admin.find_event(dead_id)->replay_actor == "outpostctl by root (uid 0)");
    CHECK(admin.find_event(dead_id)->replay_count == 1);
    RawSqlite db(path);
    CHECK(db.integer("PRAGMA user_version") == store::latest_schema_version());
}

TEST_CASE("a database from a newer Outpost is refused and left untouched") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    {
        RawSqlite db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
        db.exec("CREATE TABLE future (x); PRAGMA user_version = 99");
    }
    auto result = Store::open(path, test_options());
    REQUIRE_FALSE(result.is_ok());
    CHECK(result.status().code() == StatusCode::kVersionTooNew);
    CHECK_THAT(result.status().message(), Catch::Contains("99"));
    RawSqlite db(path);
    CHECK(db.integer("PRAGMA user_version") == 99);
    CHECK(db.text("PRAGMA journal_mode") == "delete");  // not even switched to WAL
    CHECK(db.integer("SELECT count(*) FROM sqlite_master WHERE name = 'outbox'") == 0);
}

TEST_CASE("reopening a current database applies nothing and reports no upgrade") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    open_store(path, test_options());
    auto store = open_store(path, test_options());
    CHECK_FALSE(store->open_report().created);
    CHECK(store->open_report().from_version == store::latest_schema_version());
    CHECK(store->open_report().to_version == store::latest_schema_version());
}

TEST_CASE("a store made with 4 KiB pages is rewritten with 1 KiB pages at open and keeps its rows") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    std::string event_id;
    {
        auto store = open_store(path, test_options());
        auto recorded = store->record_alarm(sample_alarm());
        REQUIRE_OK(recorded);
        event_id = recorded->event_id;
    }
    CHECK(RawSqlite(path).integer("PRAGMA page_size") == 1024);  // a new store
    {
        // What an older Outpost made: SQLite's default 4 KiB pages.
        RawSqlite db(path);
        db.exec("PRAGMA journal_mode=DELETE; PRAGMA page_size=4096; VACUUM; PRAGMA journal_mode=WAL");
        REQUIRE(db.integer("PRAGMA page_size") == 4096);
    }
    SECTION("with the file to itself, the store rewrites it once") {
        auto store = open_store(path, test_options());
        REQUIRE_OK(store->record_alarm(sample_alarm("pump-2")));
        RawSqlite db(path);
        CHECK(db.integer("PRAGMA page_size") == 1024);
        CHECK(db.text("SELECT event_id FROM outbox WHERE id = 1") == event_id);
        CHECK(db.integer("SELECT count(*) FROM alarm_record") == 2);
        CHECK(db.text("PRAGMA integrity_check") == "ok");
    }
    SECTION("while another connection has it open, the store keeps its pages and works") {
        RawSqlite other(path);
        CHECK(other.integer("SELECT count(*) FROM outbox") == 1);
        auto store = open_store(path, test_options());
        REQUIRE_OK(store->record_alarm(sample_alarm("pump-2")));
        CHECK(other.integer("PRAGMA page_size") == 4096);
        CHECK(other.integer("SELECT count(*) FROM outbox") == 2);
    }
}
