// Negative receipts at the publisher: a rejection on the gateway's own
// receipt topic makes the SENT row DEAD with the bridge's reason, reports it
// to on_dead once and frees its place under max_unconfirmed; a message of a
// newer receipt version and a rejection of a confirmed row change nothing.
#include <catch2/catch.hpp>
#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "common/receipt_contract.h"
#include "publisher_rig.h"

using namespace std::chrono_literals;
using namespace outpost;
using namespace outpost::testing;  // the rig, the scripted broker, eventually()

namespace {

PublisherOptions receipt_options() {
    PublisherOptions options = quick_publisher_options();
    options.receipts = true;
    options.receipt_timeout = std::chrono::hours(1);  // no republish in these tests
    options.receipt_timeout_max = std::chrono::hours(1);
    options.max_in_flight = 1;
    options.max_unconfirmed = 2;
    return options;
}

std::string receipt_topic(Store& store) {
    return "outpost/" + store.gateway_id() + "/receipt";
}

}  // namespace

TEST_CASE("a rejection makes the SENT row DEAD with the bridge's reason and frees its place") {
    PublisherRig rig;
    std::mutex mutex;
    std::vector<DeadEvent> reported;
    PublisherOptions options = receipt_options();
    options.on_dead = [&](const DeadEvent& event) {
        std::lock_guard<std::mutex> lock(mutex);
        reported.push_back(event);
    };
    rig.start(options);
    const auto rejected = rig.record("pump-1");
    const auto waiting = rig.record("pump-2");
    REQUIRE(rig.row_in_state(rejected.event_id, kSent));
    REQUIRE(rig.row_in_state(waiting.event_id, kSent));
    // Both places under max_unconfirmed are taken: a third row waits.
    const auto held_back = rig.record("pump-3");
    REQUIRE(eventually([&] { return rig.status().awaiting_receipt == 2; }));
    CHECK(rig.broker.publishes_of(held_back.event_id).empty());

    rig.broker.send_message(
        receipt_topic(rig.store()),
        receipt::render_rejections({{rejected.event_id, "schema_violation", "member seq: 0"}}));
    REQUIRE(rig.row_in_state(rejected.event_id, kDead));
    const StoredRow row = rig.row(rejected.event_id);
    CHECK(row.last_error == "rejected by the bridge: schema_violation: member seq: 0");
    CHECK(row.attempts == 1);
    // Its place is free: the held-back row goes out.
    REQUIRE(rig.row_in_state(held_back.event_id, kSent));
    CHECK(rig.broker.publishes_of(rejected.event_id).size() == 1);
    const PublisherStatus status = rig.status();
    CHECK(status.rejected == 1);
    CHECK(status.dead == 1);
    std::lock_guard<std::mutex> lock(mutex);
    REQUIRE(reported.size() == 1);
    CHECK(reported[0].event_id == rejected.event_id);
    CHECK(reported[0].device_id == "pump-1");
    CHECK(reported[0].reason == row.last_error);
    CHECK(reported[0].attempts == 1);
}

TEST_CASE("a confirmed row outranks a rejection, and a newer receipt version changes nothing") {
    PublisherRig rig;
    rig.start(receipt_options());
    const auto stored = rig.record("pump-1");
    const auto other = rig.record("pump-2");
    REQUIRE(rig.row_in_state(stored.event_id, kSent));
    REQUIRE(rig.row_in_state(other.event_id, kSent));
    const std::string topic = receipt_topic(rig.store());
    rig.broker.send_message(topic, receipt::render({stored.event_id}));
    REQUIRE(eventually([&] { return rig.status().confirmed == 1; }));

    rig.broker.send_message(topic,
                            receipt::render_rejections({{stored.event_id, "unmapped_topic", ""}}));
    // Version 3 names the other row: a gateway that reads up to 2 ignores it.
    rig.broker.send_message(topic, "{\"v\":3,\"rejected\":[{\"eventId\":\"" + other.event_id +
                                       "\",\"code\":\"x\"}],\"eventIds\":[\"" + other.event_id +
                                       "\"]}");
    REQUIRE(eventually([&] {
        const PublisherStatus now = rig.status();
        return now.receipts_ignored == 1 && now.receipts_newer == 1;
    }));
    CHECK(rig.row(stored.event_id).state == kSent);
    CHECK(rig.row(other.event_id).state == kSent);
    CHECK(rig.status().rejected == 0);
    CHECK(rig.status().receipts_malformed == 0);
    auto stats = rig.store().stats();
    REQUIRE(stats.is_ok());
    CHECK(stats->confirmed == 1);
    CHECK(stats->dead == 0);
}
