// W: the publisher keeps at most max_in_flight publishes awaiting their
// PUBACK, and never more than the Receive Maximum the broker announced in
// CONNACK (paho would queue the excess and fail with -12).
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "publisher_rig.h"

using namespace outpost::testing;  // the rig, the scripted broker, eventually()

namespace {

// Records `count` alarms, then lets the broker answer only once the window
// is full, round after round, until every row is SENT. Returns the largest
// number of publishes the broker saw in flight at once.
int drain_with_full_windows(PublisherRig& rig, int count, int expected_window) {
    ScriptedBroker& broker = rig.broker;
    broker.set_policy([](const PublishRecord&) { return Verdict::kHold; });
    std::vector<std::string> ids;
    for (int i = 0; i < count; ++i) ids.push_back(rig.record("pump-" + std::to_string(i)).event_id);
    for (int left = count; left > 0;) {
        const int round = std::min(left, expected_window);
        if (!broker.wait_until([&] { return broker.held_locked() == round; })) return -1;
        left -= broker.release_all(Verdict::kAck);
    }
    for (const std::string& id : ids) {
        if (!rig.row_in_state(id, kSent)) return -1;
    }
    return broker.max_in_flight();
}

}  // namespace

TEST_CASE("in-flight publishes never exceed max_in_flight") {
    PublisherRig rig;
    auto options = quick_publisher_options();
    options.max_in_flight = 3;
    rig.start(options);
    CHECK(drain_with_full_windows(rig, 10, 3) == 3);
    CHECK(rig.status().window == 3);
}

TEST_CASE("in-flight publishes never exceed the broker's Receive Maximum") {
    PublisherRig rig;
    outpost::publish::BrokerLimits limits;
    limits.receive_maximum = 4;
    rig.broker.set_limits(limits);
    auto options = quick_publisher_options();
    options.max_in_flight = 20;
    rig.start(options);
    CHECK(drain_with_full_windows(rig, 11, 4) == 4);
    CHECK(rig.status().window == 4);
}
