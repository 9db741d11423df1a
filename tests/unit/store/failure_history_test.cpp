// A failed row's last failure time and its earlier failures
// (schema/005_failure_history.sql): a DEAD row keeps when it last failed,
// whether the broker refused it or the bridge rejected it; an operator
// replay keeps the attempts, error and time it resets, with its own time,
// reason and actor, the last four; an older database upgrades in place.
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

// A store on a manual clock with one alarm and the lease taken.
struct OneRow {
    OneRow() : store(open_store(dir.file("o.db"), test_options(&clock))) {
        auto recorded = store->record_alarm(sample_alarm());
        REQUIRE_OK(recorded);
        event_id = recorded->event_id;
        auto reader = core_of(*store).open_reader();
        REQUIRE_OK(reader);
        id = *find_event_id(*reader, event_id);
        auto acquired = acquire_epoch(core_of(*store), "test");
        REQUIRE_OK(acquired);
        epoch = *acquired;
    }
    EventRecord row() {
        auto found = StoreAdmin(*store).find_event(event_id);
        REQUIRE_OK(found);
        return *found;
    }
    // Refused until DEAD after `attempts` failures, the last at the clock's time.
    void refuse_until_dead(int attempts, const std::string& error) {
        for (int i = 0; i < attempts; ++i) {
            clock.advance(1000);
            auto dead = record_failure(core_of(*store), id, error, epoch, attempts);
            REQUIRE_OK(dead);
            CHECK(*dead == (i + 1 == attempts));
        }
    }
    ManualClock clock;
    TempDir dir;
    std::unique_ptr<Store> store;
    std::string event_id;
    int64_t id = 0;
    int64_t epoch = 0;
};

}  // namespace

TEST_CASE("a DEAD row keeps the time of its last failure, and a replay keeps what it resets") {
    OneRow fixture;
    fixture.refuse_until_dead(3, "PUBACK reason 0x87 (Not authorized)");
    const int64_t first_failure = fixture.clock.wall_ms();
    EventRecord dead = fixture.row();
    CHECK(dead.state == EventState::kDead);
    CHECK(dead.failed_at_ms == first_failure);
    CHECK(dead.earlier_failures.empty());

    fixture.clock.advance(60'000);
    const int64_t replayed_at = fixture.clock.wall_ms();
    REQUIRE_OK(StoreAdmin(*fixture.store).replay_event(fixture.event_id, "ACL fixed", "op-1"));
    EventRecord replayed = fixture.row();
    CHECK(replayed.state == EventState::kPending);
    CHECK(replayed.attempts == 0);
    CHECK(replayed.failed_at_ms == 0);
    REQUIRE(replayed.earlier_failures.size() == 1);
    const EarlierFailure& earlier = replayed.earlier_failures[0];
    CHECK(earlier.attempts == 3);
    CHECK(earlier.error == "PUBACK reason 0x87 (Not authorized)");
    CHECK(earlier.failed_at_ms == first_failure);
    CHECK(earlier.replayed_at_ms == replayed_at);
    CHECK(earlier.reason == "ACL fixed");
    CHECK(earlier.actor == "op-1");

    // It fails again, for another reason, and is replayed in bulk.
    fixture.refuse_until_dead(2, "PUBACK reason 0x97 (Quota exceeded)");
    const int64_t second_failure = fixture.clock.wall_ms();
    CHECK(fixture.row().failed_at_ms == second_failure);
    auto count = StoreAdmin(*fixture.store).replay_dead("quota raised", "op-2");
    REQUIRE_OK(count);
    CHECK(*count == 1);
    const EventRecord again = fixture.row();
    REQUIRE(again.earlier_failures.size() == 2);
    CHECK(again.earlier_failures[0].reason == "ACL fixed");  // oldest first
    CHECK(again.earlier_failures[1].attempts == 2);
    CHECK(again.earlier_failures[1].error == "PUBACK reason 0x97 (Quota exceeded)");
    CHECK(again.earlier_failures[1].failed_at_ms == second_failure);
    CHECK(again.earlier_failures[1].actor == "op-2");
    CHECK(again.replay_count == 2);
}

TEST_CASE("a row the bridge rejects keeps the time of the rejection") {
    OneRow fixture;
    REQUIRE_OK(mark_sent(core_of(*fixture.store), {fixture.id}, fixture.epoch));
    fixture.clock.advance(5000);
    ReceiptIds receipt;
    receipt.rejected.push_back(
        Rejected{fixture.event_id, "rejected by the bridge: schema_violation: seq", 0});
    auto counts = confirm_receipts(core_of(*fixture.store), {receipt}, fixture.epoch);
    REQUIRE_OK(counts);
    REQUIRE(counts->front().dead.size() == 1);
    const EventRecord row = fixture.row();
    CHECK(row.state == EventState::kDead);
    CHECK(row.attempts == 1);
    CHECK(row.last_error == "rejected by the bridge: schema_violation: seq");
    CHECK(row.failed_at_ms == fixture.clock.wall_ms());
}

TEST_CASE("the history keeps the last four replays, oldest first") {
    OneRow fixture;
    for (int i = 1; i <= 6; ++i) {
        fixture.refuse_until_dead(1, "refusal " + std::to_string(i));
        REQUIRE_OK(StoreAdmin(*fixture.store)
                       .replay_event(fixture.event_id, "replay " + std::to_string(i), "op"));
    }
    const EventRecord row = fixture.row();
    REQUIRE(row.earlier_failures.size() == EventRecord::kKeptFailures);
    CHECK(row.earlier_failures.front().error == "refusal 3");
    CHECK(row.earlier_failures.front().reason == "replay 3");
    CHECK(row.earlier_failures.back().error == "refusal 6");
    CHECK(row.replay_count == 6);
}

TEST_CASE("a schema 4 database with a DEAD row upgrades in place and keeps it replayable") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    const std::string dead_id = "018f0000-0000-7000-8000-000000000001";
    {
        // What schema 4 wrote: migrations 001 to 004 and a DEAD row.
        RawSqlite db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
        REQUIRE(std::string(kMigrations.at(3).name) == "004_receipts.sql");
        for (int i = 0; i < 4; ++i) db.exec(kMigrations.at(i).sql);
        db.exec(
            "PRAGMA user_version = 4;"
            "INSERT INTO meta (key, value) VALUES ('gateway_id', 'gw-test');"
            "INSERT INTO outbox (id, event_id, device_id, seq, event_type, topic_suffix,"
            " envelope, state, attempts, last_error, replay_count) VALUES"
            " (1, '" + dead_id + "', 'pump-1', 1, 'VALVE_STUCK', 'event/pump-1', '{}', 2, 3,"
            "  'PUBACK reason 0x87 (Not authorized)', 0);"
            "INSERT INTO device_seq (device_id, last_seq) VALUES ('pump-1', 1);"
            "UPDATE outbox_summary SET dead = 1, through_id = 1");
    }
    ManualClock clock;
    auto store = open_store(path, test_options(&clock));
    CHECK(store->open_report().from_version == 4);
    CHECK(store->open_report().to_version == latest_schema_version());
    StoreAdmin admin(*store);
    auto dead = admin.find_event(dead_id);
    REQUIRE_OK(dead);
    CHECK(dead->state == EventState::kDead);
    CHECK(dead->failed_at_ms == 0);  // not recorded before schema 5
    CHECK(dead->earlier_failures.empty());
    REQUIRE_OK(admin.replay_event(dead_id, "ACL fixed", "op"));
    const EventRecord replayed = *admin.find_event(dead_id);
    REQUIRE(replayed.earlier_failures.size() == 1);
    CHECK(replayed.earlier_failures[0].attempts == 3);
    CHECK(replayed.earlier_failures[0].failed_at_ms == 0);
    CHECK(replayed.earlier_failures[0].replayed_at_ms == clock.wall_ms());
    RawSqlite db(path);
    CHECK(db.integer("PRAGMA user_version") == latest_schema_version());
}
