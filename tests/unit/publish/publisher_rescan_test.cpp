// Rows below the publisher's cursor: the safety-net rescan finds a row that
// became PENDING again without the publisher being told, and an operator's
// replay of a DEAD row is published again by the running publisher.
#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "publisher_rig.h"
#include "store/store_internal.h"

using namespace std::chrono_literals;
using namespace outpost::testing;  // the rig, the scripted broker, eventually()

TEST_CASE("the safety-net rescan picks up a row stranded behind the cursor") {
    PublisherRig rig;
    auto options = quick_publisher_options();
    options.rescan_interval = 100ms;
    rig.start(options);
    const auto first = rig.record("pump-1");
    const auto second = rig.record("pump-1");
    REQUIRE(rig.row_in_state(second.event_id, kSent));
    REQUIRE(rig.row_in_state(first.event_id, kSent));

    // Another process puts the first row back to PENDING behind the cursor:
    // the publisher sees the commit (data_version) but fetches from its
    // cursor onwards, so only the rescan from the first row can find it.
    // It keeps the outbox summary true in the same transaction, as every
    // writer must (src/store/outbox_summary.h, S2).
    const std::string where = " WHERE event_id = '" + first.event_id + "'";
    rig.exec_from_outside("BEGIN; UPDATE outbox SET state = 0" + where +
                          "; UPDATE outbox_summary SET pending = pending + 1, sent = sent - 1,"
                          " oldest_pending_id = (SELECT id FROM outbox" +
                          where + "), through_id = (SELECT max(id) FROM outbox); COMMIT");
    REQUIRE(rig.broker.wait_until([&] { return rig.broker.publish_count_locked() == 3; },
                                  std::chrono::seconds(20)));
    REQUIRE(rig.row_in_state(first.event_id, kSent));
    CHECK(rig.broker.publishes_of(first.event_id).size() == 2);
    CHECK(rig.broker.publishes_of(second.event_id).size() == 1);
    CHECK(rig.status().rescans >= 1);
}

TEST_CASE("a running publisher sends a replayed DEAD row again, with the same eventId") {
    PublisherRig rig;
    ScriptedBroker& broker = rig.broker;
    broker.set_policy([](const PublishRecord&) { return Verdict::kRefuse; });
    auto options = quick_publisher_options();
    options.max_attempts = 1;
    options.rescan_interval = 100ms;
    rig.start(options);
    const auto event = rig.record("pump-1");
    REQUIRE(rig.row_in_state(event.event_id, kDead));

    broker.set_policy([](const PublishRecord&) { return Verdict::kAck; });
    auto& core = outpost::store::core_of(rig.store());
    REQUIRE(outpost::store::replay_event(core, event.event_id, "unit test", "publisher_rescan_test")
                .is_ok());
    REQUIRE(rig.row_in_state(event.event_id, kSent));
    const auto publishes = broker.publishes_of(event.event_id);
    REQUIRE(publishes.size() == 2);
    CHECK(publishes[0].payload == publishes[1].payload);  // same bytes, same eventId
    CHECK(rig.row(event.event_id).attempts == 0);
    // The publisher counts a mark once its thread reads the marker's report,
    // just after the row's commit: wait for the count, not for a time.
    CHECK(eventually([&] { return rig.status().sent == 1; }));
    CHECK(rig.status().dead == 1);
}
