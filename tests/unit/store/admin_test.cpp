// The operator API (outpost/store_admin.h) against real database files:
// finding and listing events, replaying and purging DEAD ones, the lease.
// DEAD rows are made the way the publisher makes them (record_failure under
// a lease epoch), through the store's internal header.
#include <catch2/catch.hpp>

#include "outpost/store.h"
#include "outpost/store_admin.h"
#include "raw_sqlite.h"
#include "store/outbox.h"
#include "store/store_internal.h"
#include "store_fixture.h"
#include "temp_dir.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

// Moves the event `event_id` to DEAD as a publisher would after one
// refusal (max_attempts 1), under a fresh lease epoch.
void make_dead(Store& store, const std::string& event_id, const std::string& error) {
    auto& core = store::core_of(store);
    auto epoch = store::acquire_epoch(core, "test-publisher");
    REQUIRE_OK(epoch);
    auto row = StoreAdmin(store).find_event(event_id);
    REQUIRE_OK(row);
    auto dead = store::record_failure(core, row->id, error, *epoch, 1);
    REQUIRE_OK(dead);
    REQUIRE(*dead);
}

}  // namespace

TEST_CASE("find_event returns the row, its state, attempts, last error and exact envelope") {
    TempDir dir;
    auto store = open_store(dir.file("a.db"), test_options());
    auto recorded = store->record_alarm(sample_alarm("pump-7"));
    REQUIRE_OK(recorded);
    StoreAdmin admin(*store);

    auto found = admin.find_event(recorded->event_id);
    REQUIRE_OK(found);
    CHECK(found->event_id == recorded->event_id);
    CHECK(found->device_id == "pump-7");
    CHECK(found->seq == recorded->seq);
    CHECK(found->state == EventState::kPending);
    CHECK(found->attempts == 0);
    CHECK(found->last_error.empty());
    CHECK(found->replay_count == 0);
    CHECK(found->replayed_at_ms == 0);
    CHECK(found->envelope.find("\"eventId\":\"" + recorded->event_id + "\"") != std::string::npos);
    // The same bytes on every read: that is what the publisher sends.
    CHECK(admin.find_event(recorded->event_id)->envelope == found->envelope);

    make_dead(*store, recorded->event_id, "PUBACK 0x87 not authorized");
    found = admin.find_event(recorded->event_id);
    REQUIRE_OK(found);
    CHECK(found->state == EventState::kDead);
    CHECK(found->attempts == 1);
    CHECK(found->last_error == "PUBACK 0x87 not authorized");

    CHECK(admin.find_event("no-such-event").status().code() == StatusCode::kNotFound);
}

TEST_CASE("list_events pages through one state in commit order with an id cursor") {
    TempDir dir;
    auto store = open_store(dir.file("a.db"), test_options());
    std::vector<std::string> ids;
    for (int i = 0; i < 5; ++i) {
        auto recorded = store->record_alarm(sample_alarm("pump-" + std::to_string(i)));
        REQUIRE_OK(recorded);
        ids.push_back(recorded->event_id);
    }
    make_dead(*store, ids[1], "refused");
    make_dead(*store, ids[3], "refused");
    StoreAdmin admin(*store);

    auto first = admin.list_events(EventState::kPending, 0, 2);
    REQUIRE_OK(first);
    REQUIRE(first->size() == 2);
    CHECK((*first)[0].event_id == ids[0]);
    CHECK((*first)[1].event_id == ids[2]);
    auto rest = admin.list_events(EventState::kPending, first->back().id, 2);
    REQUIRE_OK(rest);
    REQUIRE(rest->size() == 1);  // fewer than the limit: the end
    CHECK((*rest)[0].event_id == ids[4]);

    auto dead = admin.list_events(EventState::kDead, 0, 100);
    REQUIRE_OK(dead);
    REQUIRE(dead->size() == 2);
    CHECK((*dead)[0].event_id == ids[1]);
    CHECK((*dead)[1].event_id == ids[3]);
    CHECK(admin.list_events(EventState::kSent, 0, 100)->empty());

    CHECK(admin.list_events(EventState::kDead, 0, 0).status().code() ==
          StatusCode::kInvalidArgument);
    CHECK(admin.list_events(EventState::kDead, -1, 10).status().code() ==
          StatusCode::kInvalidArgument);
}

TEST_CASE(
    "a replayed DEAD event is PENDING again with the same eventId, its replay and who asked "
    "recorded") {
    TempDir dir;
    ManualClock clock;
    auto store = open_store(dir.file("a.db"), test_options(&clock));
    auto recorded = store->record_alarm(sample_alarm());
    REQUIRE_OK(recorded);
    StoreAdmin admin(*store);
    auto before = admin.find_event(recorded->event_id);
    REQUIRE_OK(before);
    make_dead(*store, recorded->event_id, "PUBACK 0x97 quota exceeded");

    clock.advance(5000);
    REQUIRE_OK(admin.replay_event(recorded->event_id, "broker quota raised", "ops console: alice"));
    auto row = admin.find_event(recorded->event_id);
    REQUIRE_OK(row);
    CHECK(row->state == EventState::kPending);
    CHECK(row->event_id == recorded->event_id);
    CHECK(row->envelope == before->envelope);
    CHECK(row->attempts == 0);
    CHECK(row->replay_count == 1);
    CHECK(row->replayed_at_ms == clock.wall_ms());
    CHECK(row->replay_reason == "broker quota raised");
    CHECK(row->replay_actor == "ops console: alice");
    CHECK(store->stats()->dead == 0);

    SECTION("a PENDING event, an unknown one, no reason or no actor is refused, changing nothing") {
        CHECK(admin.replay_event(recorded->event_id, "again", "bob").code() ==
              StatusCode::kInvalidArgument);
        CHECK(admin.replay_event("no-such-event", "x", "bob").code() == StatusCode::kNotFound);
        make_dead(*store, recorded->event_id, "refused again");
        CHECK(admin.replay_event(recorded->event_id, "", "bob").code() ==
              StatusCode::kInvalidArgument);
        CHECK(admin.replay_event(recorded->event_id, "why", "").code() ==
              StatusCode::kInvalidArgument);
        CHECK(admin.replay_dead("", "bob").status().code() == StatusCode::kInvalidArgument);
        CHECK(admin.replay_dead("why", "").status().code() == StatusCode::kInvalidArgument);
        CHECK(admin.find_event(recorded->event_id)->state == EventState::kDead);
        CHECK(admin.find_event(recorded->event_id)->replay_count == 1);
        CHECK(admin.find_event(recorded->event_id)->replay_actor == "ops console: alice");
    }
}

TEST_CASE("replay_dead replays every DEAD event and counts them; none is not an error") {
    TempDir dir;
    auto store = open_store(dir.file("a.db"), test_options());
    StoreAdmin admin(*store);
    CHECK(*admin.replay_dead("nothing to do", "nightly job") == 0);
    std::vector<std::string> ids;
    for (int i = 0; i < 4; ++i) ids.push_back(store->record_alarm(sample_alarm())->event_id);
    make_dead(*store, ids[0], "refused");
    make_dead(*store, ids[2], "refused");

    auto replayed = admin.replay_dead("ACL fixed", "outpostctl by root (uid 0)");
    REQUIRE_OK(replayed);
    CHECK(*replayed == 2);
    CHECK(admin.list_events(EventState::kDead, 0, 10)->empty());
    CHECK(admin.list_events(EventState::kPending, 0, 10)->size() == 4);
    CHECK(admin.find_event(ids[2])->replay_reason == "ACL fixed");
    CHECK(admin.find_event(ids[2])->replay_actor == "outpostctl by root (uid 0)");
    CHECK(admin.find_event(ids[1])->replay_count == 0);
    CHECK(admin.find_event(ids[1])->replay_actor.empty());
}

TEST_CASE("purge_dead deletes DEAD events with their alarm records and nothing else") {
    TempDir dir;
    auto store = open_store(dir.file("a.db"), test_options());
    std::vector<std::string> ids;
    for (int i = 0; i < 4; ++i) ids.push_back(store->record_alarm(sample_alarm())->event_id);
    make_dead(*store, ids[0], "refused");
    make_dead(*store, ids[1], "refused");
    make_dead(*store, ids[3], "refused");  // the highest id: kept until a later row exists
    StoreAdmin admin(*store);

    auto purged = admin.purge_dead();
    REQUIRE_OK(purged);
    CHECK(*purged == 2);
    CHECK(admin.find_event(ids[0]).status().code() == StatusCode::kNotFound);
    CHECK(admin.find_event(ids[2])->state == EventState::kPending);
    CHECK(admin.find_event(ids[3])->state == EventState::kDead);
    RawSqlite raw(dir.file("a.db"), SQLITE_OPEN_READONLY);
    CHECK(raw.integer("SELECT count(*) FROM alarm_record") == 2);
    CHECK(raw.integer("SELECT count(*) FROM outbox") == 2);
}

TEST_CASE("purging a device's newest DEAD events never lets its sequence restart") {
    TempDir dir;
    const std::string path = dir.file("a.db");
    {
        auto store = open_store(path, test_options());
        REQUIRE_OK(store->record_alarm(sample_alarm("pump-1")));
        auto last_of_pump = store->record_alarm(sample_alarm("pump-1"));
        REQUIRE_OK(last_of_pump);
        CHECK(last_of_pump->seq == 2);
        REQUIRE_OK(store->record_alarm(sample_alarm("pump-2")));  // keeps the highest id
        make_dead(*store, last_of_pump->event_id, "refused");
        REQUIRE(*StoreAdmin(*store).purge_dead() == 1);
    }
    // A new process rebuilds the sequences from the database.
    auto store = open_store(path, test_options());
    auto next = store->record_alarm(sample_alarm("pump-1"));
    REQUIRE_OK(next);
    CHECK(next->seq == 3);
}

TEST_CASE("the lease record names the last publisher that acquired it, and its epoch") {
    TempDir dir;
    ManualClock clock;
    auto store = open_store(dir.file("a.db"), test_options(&clock));
    StoreAdmin admin(*store);
    auto never = admin.lease();
    REQUIRE_OK(never);
    CHECK(never->epoch == 0);
    CHECK(never->holder.empty());

    REQUIRE_OK(store::acquire_epoch(store::core_of(*store), "pid 1 on gw, boot b"));
    REQUIRE_OK(store::acquire_epoch(store::core_of(*store), "pid 2 on gw, boot b"));
    auto lease = admin.lease();
    REQUIRE_OK(lease);
    CHECK(lease->epoch == 2);
    CHECK(lease->holder == "pid 2 on gw, boot b");
    CHECK(lease->boot_id == clock.boot_id());
}

TEST_CASE("event states have one name each, parsed in any letter case") {
    for (EventState state : {EventState::kPending, EventState::kSent, EventState::kDead}) {
        const std::string name = event_state_name(state);
        CHECK(parse_event_state(name) == state);
        std::string lower = name;
        for (char& c : lower) c = static_cast<char>(c - 'A' + 'a');
        CHECK(parse_event_state(lower) == state);
    }
    CHECK_FALSE(parse_event_state("dying").has_value());
    CHECK_FALSE(parse_event_state("").has_value());
}
