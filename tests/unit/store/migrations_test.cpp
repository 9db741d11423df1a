// Schema versions: fresh databases, upgrades, and refusing the future.
#include <catch2/catch.hpp>

#include "outpost/store.h"
#include "raw_sqlite.h"
#include "store_fixture.h"
#include "temp_dir.h"

using namespace outpost;
using namespace outpost::testing;

TEST_CASE("a new database is created at the latest schema version") {
    TempDir dir;
    auto store = open_store(dir.file("o.db"), test_options());
    CHECK(store->open_report().from_version == 0);
    CHECK(store->open_report().to_version == 2);
    RawSqlite db(dir.file("o.db"));
    CHECK(db.integer("PRAGMA user_version") == 2);
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
    CHECK(db.integer("PRAGMA user_version") == 2);
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
    CHECK(store->open_report().from_version == 2);
    CHECK(store->open_report().to_version == 2);
}
