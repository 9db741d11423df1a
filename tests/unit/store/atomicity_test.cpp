// The alarm row and its event commit together or not at all, and a general
// transaction's application rows share that fate.
#include <catch2/catch.hpp>

#include "outpost/store.h"
#include "raw_sqlite.h"
#include "store_fixture.h"
#include "temp_dir.h"

using namespace outpost;
using namespace outpost::testing;

TEST_CASE("a failure between the outbox insert and the alarm insert leaves neither row") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    auto store = open_store(path, test_options());
    {
        // Make the second insert of the pair fail, as a disk error would.
        RawSqlite db(path);
        db.exec("CREATE TRIGGER fail_alarm BEFORE INSERT ON alarm_record "
                "BEGIN SELECT RAISE(ABORT, 'injected failure'); END");
    }
    auto result = store->record_alarm(sample_alarm());
    REQUIRE_FALSE(result.is_ok());
    CHECK_THAT(result.status().message(), Catch::Contains("injected failure"));

    RawSqlite db(path);
    CHECK(db.integer("SELECT count(*) FROM outbox") == 0);
    CHECK(db.integer("SELECT count(*) FROM alarm_record") == 0);

    db.exec("DROP TRIGGER fail_alarm");
    auto retried = store->record_alarm(sample_alarm());
    REQUIRE_OK(retried);
    CHECK(retried->seq == 1);  // the failed attempt consumed no sequence number
}

TEST_CASE("a transaction commits the application's rows and its events together") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    auto store = open_store(path, test_options());
    auto result = store->transact([](Transaction& tx) {
        Status status = tx.execute("CREATE TABLE IF NOT EXISTS valve (id TEXT PRIMARY KEY, open INT)", {});
        if (!status) return status;
        status = tx.execute("INSERT INTO valve VALUES (?1, ?2)", {std::string("v1"), int64_t{1}});
        if (!status) return status;
        Event event;
        event.event_type = "VALVE_OPENED";
        event.device_id = "valve-1";
        event.aggregate_type = "valve";
        event.aggregate_id = "v1";
        event.payload_json = R"({"open":true})";
        return tx.enqueue(event).status();
    });
    REQUIRE_OK(result);
    REQUIRE(result->size() == 1);
    RawSqlite db(path);
    CHECK(db.integer("SELECT count(*) FROM valve") == 1);
    CHECK(db.text("SELECT event_id FROM outbox") == result->front().event_id);
    CHECK(db.text("SELECT topic_suffix FROM outbox") == "event/valve-1");
}

TEST_CASE("a transaction body that fails rolls back its rows and events but not other callers'") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    auto store = open_store(path, test_options());
    REQUIRE(store->transact([](Transaction& tx) {
                return tx.execute("CREATE TABLE valve (id TEXT PRIMARY KEY)", {});
            }).is_ok());
    auto failed = store->transact([](Transaction& tx) {
        Status status = tx.execute("INSERT INTO valve VALUES ('v1')", {});
        if (!status) return status;
        Event event{"VALVE_OPENED", "valve-1", "valve", "v1", "{}", ""};
        if (!tx.enqueue(event).is_ok()) return Status::error(StatusCode::kInternal, "enqueue");
        return Status::error(StatusCode::kInvalidArgument, "business rule says no");
    });
    REQUIRE_FALSE(failed.is_ok());
    CHECK(failed.status().message() == "business rule says no");
    REQUIRE_OK(store->record_alarm(sample_alarm()));

    RawSqlite db(path);
    CHECK(db.integer("SELECT count(*) FROM valve") == 0);
    CHECK(db.integer("SELECT count(*) FROM outbox") == 1);
    CHECK(db.text("SELECT event_type FROM outbox") == "ALARM_RAISED");
}

TEST_CASE("application SQL cannot change the outbox or end the transaction") {
    TempDir dir;
    auto store = open_store(dir.file("o.db"), test_options());
    REQUIRE_OK(store->record_alarm(sample_alarm()));
    for (const char* sql : {"DELETE FROM outbox", "UPDATE outbox SET state = 1",
                            "INSERT INTO lease (id, epoch) VALUES (2, 9)", "COMMIT",
                            "DROP TABLE alarm_record", "PRAGMA synchronous=OFF"}) {
        INFO(sql);
        auto result = store->transact([&](Transaction& tx) { return tx.execute(sql, {}); });
        REQUIRE_FALSE(result.is_ok());
        CHECK(result.status().code() == StatusCode::kInvalidArgument);
    }
    RawSqlite db(dir.file("o.db"));
    CHECK(db.integer("SELECT count(*) FROM outbox WHERE state = 0") == 1);
}

TEST_CASE("an event with a malformed payload is refused inside the transaction") {
    TempDir dir;
    auto store = open_store(dir.file("o.db"), test_options());
    auto result = store->transact([](Transaction& tx) {
        Event event{"VALVE_OPENED", "valve-1", "valve", "v1", "{not json", ""};
        return tx.enqueue(event).status();
    });
    REQUIRE_FALSE(result.is_ok());
    CHECK_THAT(result.status().message(), Catch::Contains("payload_json"));
}
