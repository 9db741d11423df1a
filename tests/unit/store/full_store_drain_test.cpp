// A store filled to its quota with PENDING events must drain completely.
// A SENT mark lengthens its row (sent boot id, uptime), so marking a full
// store's rows grows the file past the quota; the page limit's headroom
// (max(256 pages, 1/8 of the quota)) is far smaller than the growth of
// marking every row of a full store, so marks have to make room as inserts
// do, or the drain stops with disk_full half way.
#include <catch2/catch.hpp>

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

// The smallest quota whose headroom is 1/8 of it (8 MiB: 256 pages, the
// floor) — smaller than what marking every row of the filled store adds
// (tens of thousands of small events). Small, so that it runs in time under
// qemu too.
constexpr uint64_t kQuota = 8u << 20;
constexpr int kMarkBatch = 64;  // PublisherOptions::mark_batch: the most one SENT mark takes

// Fills the store with small events, 200 per transaction (quick), until it
// refuses a transaction; returns how many events it took.
int fill_to_quota(Store& store) {
    constexpr int kPerTransaction = 200;
    for (int total = 0;; total += kPerTransaction) {
        auto result = store.transact([&](Transaction& tx) -> Status {
            for (int i = 0; i < kPerTransaction; ++i) {
                Event event;
                event.event_type = "T";
                event.device_id = "d" + std::to_string((total + i) % 8);
                event.aggregate_type = "a";
                event.aggregate_id = "1";
                event.payload_json = "{}";
                auto recorded = tx.enqueue(event);
                if (!recorded) return recorded.status();
            }
            return Status::ok();
        });
        if (result.is_ok()) continue;
        REQUIRE(result.status().code() == StatusCode::kStoreFull);
        return total;
    }
}

// Marks every PENDING row SENT, a publisher window at a time, as the
// publisher does. With `receipts`, the marked rows are confirmed every five
// windows, trailing the marks as receipts trail them behind a bridge.
struct Drained {
    int marked = 0;
    std::vector<std::string> confirmable;  // event ids marked and not yet confirmed
};

Drained drain(Store& store, int accepted, bool receipts) {
    auto epoch = acquire_epoch(core_of(store), "test");
    REQUIRE_OK(epoch);
    auto reader = core_of(store).open_reader();
    REQUIRE_OK(reader);
    Drained drained;
    for (int64_t after = 0;;) {
        auto rows = fetch_pending(*reader, after, kMarkBatch);
        REQUIRE_OK(rows);
        if (rows->empty()) return drained;
        std::vector<int64_t> ids;
        for (const OutboxRow& row : *rows) {
            ids.push_back(row.id);
            if (receipts) drained.confirmable.push_back(row.event_id);
        }
        Status status = mark_sent(core_of(store), ids, *epoch);
        INFO("after " << drained.marked << " of " << accepted << " rows marked SENT");
        REQUIRE_OK(status);
        drained.marked += static_cast<int>(ids.size());
        after = ids.back();
        if (drained.confirmable.size() >= 5 * kMarkBatch) {
            REQUIRE_OK(confirm_events(core_of(store), drained.confirmable, *epoch));
            drained.confirmable.clear();
        }
    }
}

}  // namespace

TEST_CASE(
    "a store full of PENDING events drains to the end: SENT marks purge SENT rows to make room") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    StoreOptions options = test_options();
    options.quota_bytes = kQuota;
    auto store = open_store(path, options);
    const int accepted = fill_to_quota(*store);
    REQUIRE(accepted > 10000);

    const int marked = drain(*store, accepted, /*receipts=*/false).marked;
    CHECK(marked == accepted);
    auto stats = store->stats();
    REQUIRE_OK(stats);
    CHECK(stats->pending == 0);
    CHECK(stats->purged_rows > 0);  // room came from SENT rows, oldest first
    RawSqlite db(path);
    CHECK(db.integer("SELECT count(*) FROM outbox WHERE state = 0") == 0);
    CHECK(db.text("PRAGMA integrity_check") == "ok");
    // The quota holds again once the drain is over: a new alarm is taken.
    CHECK(store->record_alarm(sample_alarm()).is_ok());
}

TEST_CASE("with receipts on, a full store drains as receipts confirm what was marked SENT") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    StoreOptions options = test_options();
    options.quota_bytes = kQuota;
    auto store = open_store(path, options);
    core_of(*store).set_purge_confirmed_only(true);
    const int accepted = fill_to_quota(*store);
    REQUIRE(accepted > 10000);

    // Only confirmed rows may be purged to make room.
    const Drained drained = drain(*store, accepted, /*receipts=*/true);
    CHECK(drained.marked == accepted);
    RawSqlite db(path);
    CHECK(db.integer("SELECT count(*) FROM outbox WHERE state = 0") == 0);
    // Nothing unconfirmed was purged: every row still kept unconfirmed is
    // one of the last, not yet confirmed ones.
    CHECK(db.integer("SELECT count(*) FROM outbox WHERE state = 1 AND confirmed IS NULL") ==
          static_cast<int64_t>(drained.confirmable.size()));
    CHECK(store->stats()->purged_rows > 0);
    CHECK(db.text("PRAGMA integrity_check") == "ok");
}
