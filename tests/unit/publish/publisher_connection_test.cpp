// Connection failures pause publishing and never count an attempt (DESIGN
// promise 5: no event goes DEAD because the network was down); the presence
// topic and the will name the lease.
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "publisher_rig.h"

using namespace std::chrono_literals;
using namespace outpost::testing;  // the rig, the scripted broker, eventually()

TEST_CASE("a connection lost with publishes in flight counts no attempt and marks nothing DEAD") {
    PublisherRig rig;
    rig.broker.set_policy([](const PublishRecord&) { return Verdict::kHold; });
    auto options = quick_publisher_options();
    options.max_attempts = 1;  // a single counted attempt would make a row DEAD
    rig.start(options);
    std::vector<std::string> ids;
    for (int i = 0; i < 3; ++i) ids.push_back(rig.record("pump-" + std::to_string(i)).event_id);

    constexpr int kLosses = 5;
    ScriptedBroker& broker = rig.broker;
    for (int loss = 1; loss <= kLosses; ++loss) {
        // All three in flight on the current connection, then the network
        // goes; the publisher hears of the loss and of the void publishes in
        // either order.
        REQUIRE(broker.wait_until(
            [&] { return broker.held_locked() == 3 && broker.connects_locked() == loss; }));
        broker.drop_connection(loss % 2 == 0 ? ScriptedBroker::LossOrder::kLossFirst
                                             : ScriptedBroker::LossOrder::kOutcomesFirst);
    }
    REQUIRE(broker.wait_until([&] { return broker.held_locked() == 3; }));
    broker.set_policy([](const PublishRecord&) { return Verdict::kAck; });
    broker.release_all(Verdict::kAck);

    for (const std::string& id : ids) {
        REQUIRE(rig.row_in_state(id, kSent));
        CHECK(rig.row(id).attempts == 0);
        CHECK(rig.row(id).last_error.empty());
        CHECK(broker.publishes_of(id).size() == kLosses + 1);
    }
    const auto status = rig.status();
    CHECK(status.dead == 0);
    CHECK(status.refused == 0);
    CHECK(status.reconnects == kLosses);
}

TEST_CASE(
    "a broker unreachable for many connects costs no attempt; the row leaves once it is back") {
    PublisherRig rig;
    rig.broker.set_reachable(false);
    auto options = quick_publisher_options();
    options.max_attempts = 1;
    rig.start(options);
    const auto event = rig.record("pump-1");

    ScriptedBroker& broker = rig.broker;
    REQUIRE(broker.wait_until([&] { return broker.connect_attempts_locked() >= 6; }));
    CHECK(rig.row(event.event_id).state == kPending);
    CHECK(rig.row(event.event_id).attempts == 0);
    CHECK(broker.publishes().empty());

    broker.set_reachable(true);
    REQUIRE(rig.row_in_state(event.event_id, kSent));
    CHECK(rig.row(event.event_id).attempts == 0);
    const auto status = rig.status();
    CHECK(status.connect_failures >= 6);
    CHECK(status.dead == 0);
    CHECK(status.last_error.find("connection refused") != std::string::npos);
}

TEST_CASE("each connection says online, retained, and leaves a will that names the lease") {
    PublisherRig rig;
    rig.start();
    const auto event = rig.record("pump-1");
    REQUIRE(rig.row_in_state(event.event_id, kSent));
    const std::string epoch = "\"epoch\":" + std::to_string(rig.status().lease_epoch);

    const auto settings = rig.broker.settings_seen();
    REQUIRE(settings.size() == 1);
    REQUIRE(settings[0].will.has_value());
    CHECK(settings[0].will->topic == "outpost/gw-test/status");
    CHECK(settings[0].will->retained);
    CHECK(settings[0].will->qos == 1);
    CHECK(settings[0].will->payload.find("\"state\":\"offline\"") != std::string::npos);
    CHECK(settings[0].will->payload.find(epoch) != std::string::npos);
    CHECK(settings[0].session_expiry_s == 0);  // clean start: the outbox is the queue

    const auto retained = rig.broker.retained();
    REQUIRE_FALSE(retained.empty());
    CHECK(retained[0].topic == "outpost/gw-test/status");
    CHECK(retained[0].payload.find("\"state\":\"online\"") != std::string::npos);
    CHECK(retained[0].payload.find(epoch) != std::string::npos);

    REQUIRE(rig.stop().is_ok());
    const auto after = rig.broker.retained();
    REQUIRE(after.size() == 2);  // a clean stop says offline before it disconnects
    CHECK(after[1].payload.find("\"clean\":true") != std::string::npos);
}
