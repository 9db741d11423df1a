// The publisher's and operator's operations on outbox rows, and fencing.
#include <catch2/catch.hpp>
#include <sqlite3.h>
#include <string>

#include "outpost/store.h"
#include "raw_sqlite.h"
#include "store/outbox.h"
#include "store/store_internal.h"
#include "store_fixture.h"
#include "temp_dir.h"

using namespace outpost;
using namespace outpost::store;
using namespace outpost::testing;

namespace {

std::vector<int64_t> ids_of(const std::vector<OutboxRow>& rows) {
    std::vector<int64_t> ids;
    for (const auto& row : rows) ids.push_back(row.id);
    return ids;
}

}  // namespace

TEST_CASE("pending rows come back in commit order and leave the queue once marked SENT") {
    TempDir dir;
    auto store = open_store(dir.file("o.db"), test_options());
    for (int i = 0; i < 5; ++i) REQUIRE_OK(store->record_alarm(sample_alarm()));
    auto reader = core_of(*store).open_reader();
    REQUIRE_OK(reader);
    auto epoch = acquire_epoch(core_of(*store), "test");
    REQUIRE_OK(epoch);
    CHECK(*epoch == 1);

    auto first = fetch_pending(*reader, 0, 3);
    REQUIRE_OK(first);
    REQUIRE(first->size() == 3);
    CHECK(first->at(0).seq == 1);
    CHECK(first->at(2).seq == 3);
    REQUIRE_OK(mark_sent(core_of(*store), ids_of(*first), *epoch));

    auto rest = fetch_pending(*reader, 0, 10);
    REQUIRE_OK(rest);
    REQUIRE(rest->size() == 2);
    CHECK(rest->at(0).seq == 4);
    CHECK(store->stats()->sent == 3);
}

TEST_CASE("a SENT mark changes only the rows it names, never one between them") {
    // P2: a row is SENT only after its own PUBACK. mark_sent updates runs
    // of consecutive ids; the rows in the gaps must stay PENDING.
    TempDir dir;
    auto store = open_store(dir.file("o.db"), test_options());
    for (int i = 0; i < 8; ++i) REQUIRE_OK(store->record_alarm(sample_alarm()));
    auto reader = core_of(*store).open_reader();
    REQUIRE_OK(reader);
    auto epoch = acquire_epoch(core_of(*store), "test");
    REQUIRE_OK(epoch);
    auto rows = fetch_pending(*reader, 0, 10);
    REQUIRE_OK(rows);
    REQUIRE(rows->size() == 8);
    const std::vector<int64_t> all = ids_of(*rows);

    // Out of order and with a repeat, as acknowledgements may come.
    REQUIRE_OK(mark_sent(core_of(*store), {all[7], all[2], all[0], all[4], all[1], all[6], all[2]},
                         *epoch));
    auto left = fetch_pending(*reader, 0, 10);
    REQUIRE_OK(left);
    CHECK(ids_of(*left) == std::vector<int64_t>{all[3], all[5]});
    CHECK(store->stats()->sent == 6);
    CHECK(store->stats()->pending == 2);

    // Marked again: nothing moves twice.
    REQUIRE_OK(mark_sent(core_of(*store), {all[0], all[1], all[2]}, *epoch));
    CHECK(store->stats()->sent == 6);
    // The summary agrees with the rows themselves.
    RawSqlite db(dir.file("o.db"));
    CHECK(db.text("SELECT count(*) FROM outbox WHERE state = " + sql_literal(OutboxState::kSent)) ==
          "6");
}

TEST_CASE("a publisher whose lease epoch was superseded can change no row") {
    TempDir dir;
    auto store = open_store(dir.file("o.db"), test_options());
    REQUIRE_OK(store->record_alarm(sample_alarm()));
    auto reader = core_of(*store).open_reader();
    auto old_epoch = acquire_epoch(core_of(*store), "first");
    auto new_epoch = acquire_epoch(core_of(*store), "second");
    REQUIRE_OK(new_epoch);
    CHECK(*new_epoch == *old_epoch + 1);
    auto rows = fetch_pending(*reader, 0, 10);

    Status stale = mark_sent(core_of(*store), ids_of(*rows), *old_epoch);
    CHECK(stale.code() == StatusCode::kFenced);
    auto stale_failure = record_failure(core_of(*store), rows->front().id, "x", *old_epoch, 1);
    CHECK(stale_failure.status().code() == StatusCode::kFenced);
    CHECK(store->stats()->pending == 1);
    REQUIRE_OK(mark_sent(core_of(*store), ids_of(*rows), *new_epoch));
    CHECK(store->stats()->pending == 0);
}

TEST_CASE("a row refused N times moves to DEAD with its last error") {
    TempDir dir;
    auto store = open_store(dir.file("o.db"), test_options());
    auto recorded = store->record_alarm(sample_alarm());
    REQUIRE_OK(recorded);
    auto reader = core_of(*store).open_reader();
    auto epoch = acquire_epoch(core_of(*store), "test");
    int64_t id = fetch_pending(*reader, 0, 1)->front().id;
    CHECK_FALSE(*record_failure(core_of(*store), id, "PUBACK 0x87 not authorized", *epoch, 3));
    CHECK_FALSE(*record_failure(core_of(*store), id, "PUBACK 0x87 not authorized", *epoch, 3));
    CHECK(*record_failure(core_of(*store), id, "PUBACK 0x87 not authorized", *epoch, 3));

    auto row = find_event(*reader, recorded->event_id);
    REQUIRE_OK(row);
    CHECK(row->state == OutboxState::kDead);
    CHECK(row->attempts == 3);
    CHECK(row->last_error == "PUBACK 0x87 not authorized");
    CHECK(store->stats()->dead == 1);
}

TEST_CASE("status counts each state's rows and names the lowest pending id, 0 when none") {
    TempDir dir;
    auto store = open_store(dir.file("o.db"), test_options());
    for (int i = 0; i < 5; ++i) REQUIRE_OK(store->record_alarm(sample_alarm()));
    auto reader = core_of(*store).open_reader();
    auto epoch = acquire_epoch(core_of(*store), "test");
    REQUIRE_OK(epoch);
    auto rows = fetch_pending(*reader, 0, 5);
    REQUIRE_OK(rows);
    REQUIRE(rows->size() == 5);
    // Row 1 SENT, row 3 DEAD: pending are rows 2, 4 and 5.
    REQUIRE_OK(mark_sent(core_of(*store), {rows->at(0).id}, *epoch));
    REQUIRE_OK(record_failure(core_of(*store), rows->at(2).id, "refused", *epoch, 1));

    auto stats = store->stats();
    REQUIRE_OK(stats);
    CHECK(stats->pending == 3);
    CHECK(stats->sent == 1);
    CHECK(stats->dead == 1);
    CHECK(stats->oldest_pending_id == rows->at(1).id);

    REQUIRE_OK(
        mark_sent(core_of(*store), {rows->at(1).id, rows->at(3).id, rows->at(4).id}, *epoch));
    stats = store->stats();
    REQUIRE_OK(stats);
    CHECK(stats->pending == 0);
    CHECK(stats->sent == 4);
    CHECK(stats->dead == 1);
    CHECK(stats->oldest_pending_id == 0);
}

TEST_CASE("the outbox states are the schema's: each one is accepted on disk, and nothing else") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    auto store = open_store(path, test_options());
    REQUIRE_OK(store->record_alarm(sample_alarm()));
    // The on-disk values are a file format: they never change.
    CHECK(sql_literal(OutboxState::kPending) == "0");
    CHECK(sql_literal(OutboxState::kSent) == "1");
    CHECK(sql_literal(OutboxState::kDead) == "2");
    RawSqlite db(path);
    for (OutboxState state : {OutboxState::kPending, OutboxState::kSent, OutboxState::kDead}) {
        INFO(event_state_name(state));
        CHECK_NOTHROW(db.exec("UPDATE outbox SET state = " + sql_literal(state)));
        CHECK(db.text("SELECT state FROM outbox") == sql_literal(state));
    }
    CHECK_THROWS_WITH(db.exec("UPDATE outbox SET state = 3"), Catch::Contains("CHECK"));
}

TEST_CASE("a reader that walks the whole outbox keeps at most 128 KiB of pages cached") {
    TempDir dir;
    auto store = open_store(dir.file("o.db"), test_options());
    // About 2 MB of events in one transaction: far more pages than either cache holds.
    constexpr int kEvents = 2000;
    const std::string payload = "{\"blob\":\"" + std::string(1000, 'x') + "\"}";
    auto written = store->transact([&](Transaction& tx) {
        for (int i = 0; i < kEvents; ++i) {
            Event event;
            event.event_type = "VALVE_MOVED";
            event.device_id = "valve-" + std::to_string(i % 8);
            event.aggregate_type = "valve";
            event.aggregate_id = std::to_string(i);
            event.payload_json = payload;
            auto enqueued = tx.enqueue(event);
            if (!enqueued) return enqueued.status();
        }
        return Status::ok();
    });
    REQUIRE_OK(written);
    auto reader = core_of(*store).open_reader();
    REQUIRE_OK(reader);
    auto rows = fetch_pending(*reader, 0, kEvents);
    REQUIRE_OK(rows);
    REQUIRE(rows->size() == kEvents);

    int used = 0;
    int high_water = 0;
    REQUIRE(sqlite3_db_status(reader->handle(), SQLITE_DBSTATUS_CACHE_USED, &used, &high_water,
                              0) == SQLITE_OK);
    INFO("reader page cache: " << used << " bytes");
    // kReaderPageCacheKiB (sqlite_db.cpp) counts SQLite's page headers in;
    // the slack covers the pager's own structures. A 512 KiB cache would
    // hold about 120 of these pages.
    CHECK(used <= 128 * 1024 + 16 * 1024);
    CHECK(used > 0);
}
