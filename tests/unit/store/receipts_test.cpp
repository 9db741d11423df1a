// Receipts in the store (schema/004_receipts.sql): confirm marks
// move SENT rows only, one transaction per receipt or per batch of queued
// receipts, with exact counters per receipt;
// purges with receipts on keep what is not confirmed; old databases upgrade
// in place.
#include <catch2/catch.hpp>

#include "outpost/store.h"
#include "outpost/store_admin.h"
#include "raw_sqlite.h"
#include "store/migrations.h"
#include "store/outbox.h"
#include "store/store_internal.h"
#include "store_fixture.h"
#include "temp_dir.h"

using namespace outpost;
using namespace outpost::store;
using namespace outpost::testing;

namespace {

struct Recorded {
    std::vector<std::string> event_ids;
    std::vector<int64_t> ids;
};

Recorded record(Store& store, int count) {
    Recorded recorded;
    auto reader = core_of(store).open_reader();
    REQUIRE_OK(reader);
    for (int i = 0; i < count; ++i) {
        auto event = store.record_alarm(sample_alarm());
        REQUIRE_OK(event);
        recorded.event_ids.push_back(event->event_id);
        recorded.ids.push_back(*find_event_id(*reader, event->event_id));
    }
    return recorded;
}

// A store with `count` recorded alarms and the lease taken: what every
// receipt case starts from.
struct Leased {
    explicit Leased(int count, const Clock* clock = nullptr)
        : path(dir.file("o.db")),
          store(open_store(path, test_options(clock))),
          rows(record(*store, count)) {
        auto acquired = acquire_epoch(core_of(*store), "test");
        REQUIRE_OK(acquired);
        epoch = *acquired;
    }
    TempDir dir;
    const std::string path;
    std::unique_ptr<Store> store;
    Recorded rows;
    int64_t epoch = 0;
};

// The figures from the rows themselves, to hold the summary to (S1/S2).
void check_counts_match_rows(Store& store, const std::string& path) {
    RawSqlite db(path);
    const auto stats = store.stats();
    REQUIRE_OK(stats);
    CHECK(stats->sent == db.integer("SELECT count(*) FROM outbox WHERE state = 1"));
    CHECK(stats->confirmed ==
          db.integer("SELECT count(*) FROM outbox WHERE state = 1 AND confirmed IS NOT NULL"));
    CHECK(db.integer("SELECT count(*) FROM outbox WHERE state <> 1 AND confirmed IS NOT NULL") ==
          0);
}

}  // namespace

TEST_CASE("a receipt confirms SENT rows only, never moves a row back, and counts the rest") {
    Leased leased(5);
    auto& [dir, path, store, rows, epoch] = leased;
    REQUIRE_OK(mark_sent(core_of(*store), {rows.ids[0], rows.ids[1], rows.ids[2]}, epoch));

    const std::string unknown = "018f0000-0000-7000-8000-00000000abcd";
    auto counts = confirm_events(
        core_of(*store), {rows.event_ids[0], rows.event_ids[1], rows.event_ids[3], unknown}, epoch);
    REQUIRE_OK(counts);
    CHECK(counts->confirmed == std::vector<std::string>{rows.event_ids[0], rows.event_ids[1]});
    CHECK(counts->not_sent == std::vector<std::string>{rows.event_ids[3]});  // PENDING: left alone
    CHECK(counts->unknown == std::vector<std::string>{unknown});
    CHECK(store->stats()->confirmed == 2);
    CHECK(store->stats()->pending == 2);

    // Repeated: already confirmed, nothing changes.
    auto again = confirm_events(core_of(*store), {rows.event_ids[0]}, epoch);
    REQUIRE_OK(again);
    CHECK(again->already_confirmed == std::vector<std::string>{rows.event_ids[0]});
    CHECK(again->confirmed.empty());
    CHECK(store->stats()->confirmed == 2);

    // Nothing the publisher does afterwards moves a confirmed row back.
    REQUIRE_OK(mark_sent(core_of(*store), {rows.ids[0]}, epoch));
    auto failure = record_failure(core_of(*store), rows.ids[0], "late refusal", epoch, 1);
    REQUIRE_OK(failure);
    CHECK_FALSE(*failure);
    StoreAdmin admin(*store);
    auto row = admin.find_event(rows.event_ids[0]);
    REQUIRE_OK(row);
    CHECK(row->state == EventState::kSent);
    CHECK(row->confirmed);
    CHECK_FALSE(admin.find_event(rows.event_ids[2])->confirmed);
    check_counts_match_rows(*store, path);
}

TEST_CASE("row hints only spare the lookup: a wrong hint confirms no other row") {
    Leased leased(5);
    auto& [dir, path, store, rows, epoch] = leased;
    REQUIRE_OK(mark_sent(core_of(*store), rows.ids, epoch));

    const std::string unknown = "018f0000-0000-7000-8000-00000000abcd";
    // Right hint, a hint at another SENT row, no hint, and an unknown id
    // hinted at a real row: each eventId confirms its own row or nothing.
    auto counts = confirm_events(core_of(*store),
                                 {rows.event_ids[0], rows.event_ids[1], rows.event_ids[2], unknown},
                                 epoch, {rows.ids[0], rows.ids[3], 0, rows.ids[4]});
    REQUIRE_OK(counts);
    CHECK(counts->confirmed ==
          std::vector<std::string>{rows.event_ids[0], rows.event_ids[1], rows.event_ids[2]});
    CHECK(counts->unknown == std::vector<std::string>{unknown});
    StoreAdmin admin(*store);
    CHECK_FALSE(admin.find_event(rows.event_ids[3])->confirmed);  // the wrong hint's row
    CHECK_FALSE(admin.find_event(rows.event_ids[4])->confirmed);  // the unknown id's hint
    CHECK(store->stats()->confirmed == 3);
    check_counts_match_rows(*store, path);
}

TEST_CASE("one receipt is one transaction, and a stale lease confirms nothing") {
    TempDir dir;
    auto store = open_store(dir.file("o.db"), test_options());
    Recorded rows = record(*store, 40);
    auto old_epoch = acquire_epoch(core_of(*store), "old");
    REQUIRE_OK(mark_sent(core_of(*store), rows.ids, *old_epoch));
    auto epoch = acquire_epoch(core_of(*store), "new");
    auto stale = confirm_events(core_of(*store), rows.event_ids, *old_epoch);
    CHECK(stale.status().code() == StatusCode::kFenced);
    CHECK(store->stats()->confirmed == 0);

    const uint64_t commits_before = store->stats()->commits;
    auto counts = confirm_events(core_of(*store), rows.event_ids, *epoch);
    REQUIRE_OK(counts);
    CHECK(counts->confirmed.size() == 40);
    CHECK(store->stats()->commits == commits_before + 1);
    CHECK(store->stats()->confirmed == 40);
}

TEST_CASE("queued receipts confirm in one transaction, each counted as if alone") {
    Leased leased(6);
    auto& [dir, path, store, rows, epoch] = leased;
    std::vector<int64_t> sent(rows.ids.begin(), rows.ids.begin() + 5);  // the last stays PENDING
    REQUIRE_OK(mark_sent(core_of(*store), sent, epoch));

    const std::string other_gateways = "018f0000-0000-7000-8000-00000000abcd";
    const auto& e = rows.event_ids;
    const std::vector<ReceiptIds> receipts = {
        {{e[0], e[1]}, {}},
        {{other_gateways, "not an event id"}, {rows.ids[2], 0}},  // foreign, malformed id
        {{e[2], e[0], e[5]}, {}},                                 // e[0] again; e[5] PENDING
        {{e[3]}, {rows.ids[4]}},                                  // a wrong hint
    };
    const uint64_t commits_before = store->stats()->commits;
    auto counts = confirm_receipts(core_of(*store), receipts, epoch);
    REQUIRE_OK(counts);
    CHECK(store->stats()->commits == commits_before + 1);
    REQUIRE(counts->size() == 4);
    CHECK((*counts)[0].confirmed == std::vector<std::string>{e[0], e[1]});
    CHECK((*counts)[1].confirmed.empty());
    CHECK((*counts)[1].unknown == std::vector<std::string>{other_gateways, "not an event id"});
    CHECK((*counts)[2].confirmed == std::vector<std::string>{e[2]});
    CHECK((*counts)[2].already_confirmed == std::vector<std::string>{e[0]});
    CHECK((*counts)[2].not_sent == std::vector<std::string>{e[5]});
    CHECK((*counts)[3].confirmed == std::vector<std::string>{e[3]});
    StoreAdmin admin(*store);
    CHECK_FALSE(admin.find_event(e[4])->confirmed);  // hinted at, never named
    CHECK(admin.find_event(e[5])->state == EventState::kPending);
    CHECK(store->stats()->confirmed == 4);
    check_counts_match_rows(*store, path);

    // A stale lease's batch confirms none of it.
    auto newer = acquire_epoch(core_of(*store), "newer");
    REQUIRE_OK(newer);
    auto stale = confirm_receipts(core_of(*store), {{{e[4]}, {}}}, epoch);
    CHECK(stale.status().code() == StatusCode::kFenced);
    CHECK_FALSE(admin.find_event(e[4])->confirmed);
    CHECK(store->stats()->confirmed == 4);
}

TEST_CASE("with receipts on, purges remove confirmed rows only; counters stay exact") {
    ManualClock clock;
    Leased leased(5, &clock);
    auto& [dir, path, store, rows, epoch] = leased;
    REQUIRE_OK(
        mark_sent(core_of(*store), {rows.ids[0], rows.ids[1], rows.ids[2], rows.ids[3]}, epoch));
    REQUIRE_OK(confirm_events(core_of(*store), {rows.event_ids[1], rows.event_ids[3]}, epoch));
    clock.advance(48LL * 3600 * 1000);  // past the 24 h retention

    core_of(*store).set_purge_confirmed_only(true);
    auto purged = store->purge_expired();
    REQUIRE_OK(purged);
    CHECK(*purged == 2);
    StoreAdmin admin(*store);
    CHECK(admin.find_event(rows.event_ids[0]).is_ok());  // unconfirmed: kept
    CHECK(admin.find_event(rows.event_ids[2]).is_ok());
    CHECK(admin.find_event(rows.event_ids[1]).status().code() == StatusCode::kNotFound);
    CHECK(store->stats()->sent == 2);
    CHECK(store->stats()->confirmed == 0);
    check_counts_match_rows(*store, path);

    // Receipts off: SENT is final, as before.
    core_of(*store).set_purge_confirmed_only(false);
    purged = store->purge_expired();
    REQUIRE_OK(purged);
    CHECK(*purged == 2);
    CHECK(store->stats()->sent == 0);
    check_counts_match_rows(*store, path);

    // And the figures survive a reopen (the summary, S2).
    store.reset();
    store = open_store(path, test_options(&clock));
    check_counts_match_rows(*store, path);
}

TEST_CASE("an operator replay of a confirmed row clears its confirmation and the count") {
    Leased leased(2);
    auto& [dir, path, store, rows, epoch] = leased;
    REQUIRE_OK(mark_sent(core_of(*store), rows.ids, epoch));
    REQUIRE_OK(confirm_events(core_of(*store), rows.event_ids, epoch));
    StoreAdmin admin(*store);
    REQUIRE_OK(admin.replay_event(rows.event_ids[0], "consumer lost it", "test"));
    auto row = admin.find_event(rows.event_ids[0]);
    CHECK(row->state == EventState::kPending);
    CHECK_FALSE(row->confirmed);
    CHECK(store->stats()->confirmed == 1);
    check_counts_match_rows(*store, path);
}

TEST_CASE("a schema 3 database with SENT rows upgrades in place, every row unconfirmed") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    {
        // What schema 3 wrote: migrations 001 to 003 and a SENT row.
        RawSqlite db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
        REQUIRE(std::string(kMigrations.at(2).name) == "003_outbox_summary.sql");
        for (int i = 0; i < 3; ++i) db.exec(kMigrations.at(i).sql);
        db.exec(
            "PRAGMA user_version = 3;"
            "INSERT INTO meta (key, value) VALUES ('gateway_id', 'gw-test');"
            "INSERT INTO outbox (id, event_id, device_id, seq, event_type, topic_suffix,"
            " envelope, state, attempts, replay_count) VALUES"
            " (1, '018f0000-0000-7000-8000-000000000001', 'pump-1', 1, 'VALVE_STUCK',"
            "  'event/pump-1', '{}', 1, 0, 0);"
            "INSERT INTO device_seq (device_id, last_seq) VALUES ('pump-1', 1);"
            "UPDATE outbox_summary SET sent = 1, through_id = 1");
    }
    auto store = open_store(path, test_options());
    CHECK(store->open_report().from_version == 3);
    CHECK(store->open_report().to_version == latest_schema_version());
    CHECK(store->stats()->sent == 1);
    CHECK(store->stats()->confirmed == 0);
    auto epoch = acquire_epoch(core_of(*store), "test");
    auto counts = confirm_events(core_of(*store), {"018f0000-0000-7000-8000-000000000001"}, *epoch);
    REQUIRE_OK(counts);
    CHECK(counts->confirmed.size() == 1);
    check_counts_match_rows(*store, path);
}
