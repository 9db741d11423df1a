// A restarted publisher picks up the SENT rows an earlier run left
// unconfirmed as fast as its room (max_unconfirmed) allows, not a fixed
// number of rows per look. Looks are counted, not timed.
#include "publish/unconfirmed_pickup.h"

#include <atomic>
#include <catch2/catch.hpp>
#include <memory>
#include <thread>
#include <vector>

#include "outpost/store.h"
#include "store/outbox.h"
#include "store/store_internal.h"
#include "store_fixture.h"
#include "temp_dir.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

// More than the 256 rows a look used to read at most.
constexpr int kEarlierRows = 600;
constexpr int kConfirmedRows = 40;

// A store as a run with receipts on leaves it: every row SENT, the first
// kConfirmedRows confirmed, the rest awaiting their receipts. Returns the
// ids of the unconfirmed rows, in id order.
std::vector<int64_t> leave_unconfirmed_rows(Store& store, int earlier_rows = kEarlierRows) {
    std::vector<std::thread> writers;  // concurrent: group commit batches them
    std::atomic<int> refused{0};
    for (int t = 0; t < 4; ++t) {
        writers.emplace_back([&, t] {
            for (int i = 0; i < earlier_rows / 4; ++i) {
                if (!store.record_alarm(sample_alarm("pump-" + std::to_string(t)))) refused++;
            }
        });
    }
    for (auto& writer : writers) writer.join();
    REQUIRE(refused == 0);
    auto& core = store::core_of(store);
    auto reader = core.open_reader();
    REQUIRE_OK(reader);
    auto rows = store::fetch_pending(*reader, 0, earlier_rows);
    REQUIRE_OK(rows);
    REQUIRE(rows->size() == static_cast<size_t>(earlier_rows));
    auto epoch = store::acquire_epoch(core, "earlier run");
    REQUIRE_OK(epoch);
    std::vector<int64_t> ids;
    std::vector<std::string> confirmed;
    for (const auto& row : *rows) {
        ids.push_back(row.id);
        if (static_cast<int>(confirmed.size()) < kConfirmedRows) confirmed.push_back(row.event_id);
    }
    REQUIRE(store::mark_sent(core, ids, *epoch).is_ok());
    REQUIRE_OK(store::confirm_events(core, confirmed, *epoch));
    return std::vector<int64_t>(ids.begin() + kConfirmedRows, ids.end());
}

// Looks until the pickup ends (at most `max_looks`), collecting the ids.
std::vector<int64_t> pick_up(publish::UnconfirmedPickup& pickup, store::Db& reader, int64_t room,
                             int max_looks) {
    std::vector<int64_t> ids;
    pickup.begin();
    for (int look = 0; look < max_looks && pickup.more(); ++look) {
        auto rows = pickup.look(reader, room);
        REQUIRE_OK(rows);
        for (const auto& row : *rows) ids.push_back(row.id);
    }
    return ids;
}

// A store an earlier run left, and a reader on it.
struct EarlierRun {
    explicit EarlierRun(int earlier_rows = kEarlierRows)
        : store(open_store(dir.file("outbox.db"), test_options())),
          unconfirmed(leave_unconfirmed_rows(*store, earlier_rows)),
          reader_db(store::core_of(*store).open_reader()) {
        REQUIRE_OK(reader_db);
    }
    store::Db& reader() { return *reader_db; }

    TempDir dir;
    std::unique_ptr<Store> store;
    std::vector<int64_t> unconfirmed;  // ids, in id order
    Result<store::Db> reader_db;
};

}  // namespace

TEST_CASE("a pickup with room for every earlier unconfirmed row takes them all in one look") {
    EarlierRun earlier;
    publish::UnconfirmedPickup pickup;
    const std::vector<int64_t> picked = pick_up(pickup, earlier.reader(), /*room=*/1000, 10);
    CHECK(pickup.looks() == 1);
    CHECK_FALSE(pickup.more());
    CHECK(picked == earlier.unconfirmed);  // every one, oldest first, none confirmed
}

TEST_CASE("a pickup bounded by room takes as many looks as room requires, each row once") {
    EarlierRun earlier;
    publish::UnconfirmedPickup pickup;
    const int64_t room = 200;  // 560 rows: 200 + 200 + 160
    const std::vector<int64_t> picked = pick_up(pickup, earlier.reader(), room, 10);
    CHECK(pickup.looks() == 3);
    CHECK_FALSE(pickup.more());
    CHECK(picked == earlier.unconfirmed);

    // No room: no look, and the pickup waits where it is.
    pickup.begin();
    auto none = pickup.look(earlier.reader(), 0);
    REQUIRE_OK(none);
    CHECK(none->empty());
    CHECK(pickup.looks() == 3);
    CHECK(pickup.more());
}

TEST_CASE("a look reads at most kMaxLookRows rows however much room there is") {
    // 4,400 rows, 4,360 unconfirmed: one full look and one short one.
    EarlierRun earlier(static_cast<int>(publish::UnconfirmedPickup::kMaxLookRows) + 304);
    publish::UnconfirmedPickup pickup;
    pickup.begin();
    auto first = pickup.look(earlier.reader(), /*room=*/1000000);
    REQUIRE_OK(first);
    CHECK(static_cast<int64_t>(first->size()) == publish::UnconfirmedPickup::kMaxLookRows);
    CHECK(pickup.more());
    const std::vector<int64_t> rest = pick_up(pickup, earlier.reader(), 1000000, 10);
    CHECK(pickup.looks() == 2);
    CHECK_FALSE(pickup.more());
    CHECK(first->size() + rest.size() == earlier.unconfirmed.size());
}
