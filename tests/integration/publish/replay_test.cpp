// An operator's replay while the publisher runs, against a real mosquitto
// and an independent subscriber: a SENT row and a DEAD row, replayed through
// the admin API, arrive again with the same eventId and envelope, and the
// store records who asked. The publisher finds them with its safety-net
// rescan (their ids are below its cursor).
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "outpost/store_admin.h"
#include "publish_harness.h"

using namespace outpost;
using namespace outpost::testing;
using namespace std::chrono_literals;

namespace {

// The payloads that arrived on alarm topics for `event_id`, in order.
std::vector<std::string> payloads_of(const Subscriber& subscriber, const std::string& event_id) {
    std::vector<std::string> payloads;
    for (const auto& message : subscriber.messages()) {
        if (message.envelope.is_object() && message.envelope.value("eventId", "") == event_id) {
            payloads.push_back(message.payload);
        }
    }
    return payloads;
}

}  // namespace

TEST_CASE("a running publisher sends replayed SENT and DEAD rows again with the same eventId") {
    Mosquitto broker(gateway_acl_config("gw-test", "outpost/gw-test/alarm/forbidden-0"));
    Subscriber subscriber(broker, "observer", false, "observer", "observer-secret");
    TempDir dir;
    const std::string db = dir.file("replay.db");
    auto store = open_store(db, test_options());
    const auto sent = record_alarms(*store, 6, 2, 1);
    const auto refused = record_alarms(*store, 1, 1, 1, "forbidden-");

    PublisherOptions options = test_publisher_options(broker);
    options.endpoint.username = "gw-test";
    options.endpoint.password = "gateway-secret";
    options.max_attempts = 1;
    options.rescan_interval = 200ms;
    auto publisher = Publisher::start(*store, options);
    REQUIRE_OK(publisher);
    REQUIRE(eventually([&] { return outbox_view(db).sent == 6 && outbox_view(db).dead == 1; }));
    REQUIRE(eventually([&] { return subscriber.event_counts().size() == 6; }));
    const std::string sent_id = sent.front().event_id;
    const std::string dead_id = refused.front().event_id;
    REQUIRE(payloads_of(subscriber, sent_id).size() == 1);

    StoreAdmin admin(*store);
    std::string sent_twice;  // the one eventId that must arrive twice
    SECTION("a SENT row") {
        sent_twice = sent_id;
        REQUIRE_OK(admin.replay_event(sent_id, "consumer lost its copy", "integration test"));
        REQUIRE(eventually([&] { return payloads_of(subscriber, sent_id).size() == 2; }));
        const auto payloads = payloads_of(subscriber, sent_id);
        CHECK(payloads[0] == payloads[1]);  // same bytes, same eventId
        REQUIRE(eventually([&] { return admin.find_event(sent_id)->state == EventState::kSent; }));
        auto row = admin.find_event(sent_id);
        REQUIRE_OK(row);
        CHECK(row->replay_count == 1);
        CHECK(row->replay_actor == "integration test");
    }
    SECTION("a DEAD row, once the broker allows it") {
        CHECK(subscriber.event_counts().count(dead_id) == 0);
        broker.replace_acl(gateway_acl("gw-test"));
        REQUIRE_OK(admin.replay_event(dead_id, "ACL fixed", "integration test"));
        REQUIRE(eventually([&] { return payloads_of(subscriber, dead_id).size() == 1; }));
        REQUIRE(eventually([&] { return admin.find_event(dead_id)->state == EventState::kSent; }));
        CHECK(admin.find_event(dead_id)->replay_actor == "integration test");
    }
    // Nothing else was sent twice.
    for (const auto& [event_id, count] : subscriber.event_counts()) {
        INFO(event_id);
        CHECK(count == (event_id == sent_twice ? 2 : 1));
    }
    CHECK((*publisher)->status().rescans >= 1);
}
