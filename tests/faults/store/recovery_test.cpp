// What the store does after an I/O error (write_batch.cpp I5, I6): a
// reopen that fails half-way leaves the writer closed, never half-open;
// damage found by the check after a reopen stops every later write; a
// failed checkpoint is counted and its sync is not retried on the same
// connection.
#include <catch2/catch.hpp>
#include <fstream>

#include "error_vfs_fixture.h"
#include "outpost/store.h"
#include "raw_sqlite.h"
#include "store_fixture.h"
#include "tap_text.h"
#include "temp_dir.h"

namespace outpost::faults {
namespace {

using outpost::testing::RawSqlite;
using outpost::testing::sample_alarm;
using outpost::testing::TempDir;

std::unique_ptr<Store> open_over_errors(const std::string& path) {
    auto opened = Store::open(path, options_over_errors());
    REQUIRE_OK(opened);
    return std::move(*opened);
}

StoreStats stats_of(Store& store) {
    auto stats = store.stats();
    REQUIRE_OK(stats);
    return *stats;
}

// A store of 300 alarms, closed (which checkpoints every row into the
// database file) and opened again (its quick_check leaves every page cached).
std::unique_ptr<Store> reopened_with_alarms(const std::string& path) {
    {
        auto store = open_over_errors(path);
        for (int i = 0; i < 300; ++i) REQUIRE_OK(store->record_alarm(sample_alarm()));
    }
    return open_over_errors(path);
}

// The outbox leaf holding the oldest events: new rows never touch it.
int64_t oldest_outbox_leaf(const std::string& path) {
    return RawSqlite(path).integer(
        "SELECT pageno FROM dbstat WHERE name = 'outbox' AND pagetype = 'leaf' ORDER BY path "
        "LIMIT 1");
}

// Overwrites one page of the database file, as a failing card would.
void garble_page(const std::string& path, int64_t page) {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp((page - 1) * 4096);
    const std::string garbage(4096, '\x5a');
    file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
}

}  // namespace

TEST_CASE("a reopen that fails half-way is never used: no sequence number is handed out twice") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    error_vfs().clear();
    auto store = reopened_with_alarms(path);
    // Another connection writes: the writer's cache is stale, its next batch reads.
    RawSqlite(path).exec("CREATE TABLE other_process (x)");

    IoFault fault;
    fault.op = IoOp::kRead;
    fault.persistent = true;
    error_vfs().inject(fault);
    auto failed = store->record_alarm(sample_alarm());
    REQUIRE_FALSE(failed.is_ok());
    CHECK(failed.status().code() == StatusCode::kIoError);
    INFO(testing::one_line(failed.status().to_string()));
    // The reopen after the error failed too: the writer is closed.
    CHECK_THAT(testing::one_line(failed.status().message()), Catch::Contains("reopening"));

    // Open reads no more than the outbox summary, device_seq and the rows
    // past the summary (outbox_summary.h), so the next batch reopens whole
    // once the card reads again. A writer left half-open by the failed
    // reopen would have forgotten every sequence number and hand out seq 1.
    error_vfs().clear();
    for (int i = 1; i <= 3; ++i) {
        auto recorded = store->record_alarm(sample_alarm());
        REQUIRE_OK(recorded);
        CHECK(recorded->seq == 300 + i);
    }
}

TEST_CASE("damage found by the check after an I/O error refuses every later write until reopen") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    error_vfs().clear();
    auto store = reopened_with_alarms(path);
    // A failing card garbles the leaf holding the oldest events: a page new
    // rows never touch, so only a fresh read of the file can find it.
    garble_page(path, oldest_outbox_leaf(path));
    REQUIRE_OK(store->record_alarm(sample_alarm()));  // the cache still hides the damage

    IoFault fault;
    fault.op = IoOp::kSync;
    fault.path_suffix = "-wal";
    error_vfs().inject(fault);
    auto failed = store->record_alarm(sample_alarm());
    error_vfs().clear();
    REQUIRE_FALSE(failed.is_ok());
    INFO(testing::one_line(failed.status().to_string()));
    CHECK(failed.status().code() == StatusCode::kOutcomeUnknown);
    CHECK_THAT(testing::one_line(failed.status().message()), Catch::Contains("damaged"));

    for (int i = 0; i < 2; ++i) {
        auto refused = store->record_alarm(sample_alarm());
        REQUIRE_FALSE(refused.is_ok());
        CHECK(refused.status().code() == StatusCode::kCorruption);
        CHECK_THAT(testing::one_line(refused.status().message()), Catch::Contains("open it again"));
    }
    REQUIRE_OK(store->close());
    store.reset();
    auto reopened = Store::open(path, outpost::testing::test_options());
    REQUIRE_FALSE(reopened.is_ok());
    CHECK(reopened.status().code() == StatusCode::kCorruption);
}

TEST_CASE(
    "a checkpoint whose sync fails is counted, retried on a fresh connection, and loses nothing") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    error_vfs().clear();
    auto store = open_over_errors(path);
    REQUIRE_OK(store->record_alarm(sample_alarm()));

    IoFault fault;
    fault.op = IoOp::kSync;
    fault.path_suffix = ".db";  // commits sync the WAL; only checkpoints sync the database
    fault.persistent = true;
    error_vfs().inject(fault);
    const uint64_t opens_before = error_vfs().calls(IoOp::kOpen);
    // The commit is durable in the WAL; only copying it back fails.
    REQUIRE_OK(fill_past_checkpoint(*store));
    // Never the same failed sync again: the writer was closed and reopened.
    CHECK(error_vfs().calls(IoOp::kOpen) > opens_before);
    CHECK(stats_of(*store).checkpoint_failures == 1);  // (stats opens a reader: read it after)
    REQUIRE_OK(store->record_alarm(sample_alarm()));
    CHECK(stats_of(*store).checkpoint_failures == 2);

    error_vfs().clear();
    const uint64_t pages_before = stats_of(*store).checkpoint_pages;
    auto recorded = store->record_alarm(sample_alarm());
    REQUIRE_OK(recorded);
    CHECK(recorded->seq == 3);
    const StoreStats healed = stats_of(*store);
    CHECK(healed.checkpoint_failures == 2);
    CHECK(healed.checkpoint_pages > pages_before);
    store.reset();
    RawSqlite db(path);
    CHECK(db.text("PRAGMA integrity_check") == "ok");
    CHECK(db.integer("SELECT count(*) FROM outbox") == 3);
    CHECK(db.integer("SELECT length(b) FROM filler") == 5242880);
}

}  // namespace outpost::faults
