// A subscriber that leaves with messages unacknowledged gets exactly those
// again, DUP set, when it comes back with the same client id.
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "mqtt5_harness.h"

using namespace outpost;
using namespace outpost::testing;
using bridge::mqtt5::Message;
using bridge::mqtt5::Subscriber;

TEST_CASE(
    "a subscriber disconnected with unacknowledged messages gets them again with DUP after "
    "reconnecting with the same client id") {
    TestBroker broker;
    auto options = subscriber_options(broker, "redelivery-subscriber");
    options.clean_start = true;  // a fresh session, kept for an hour from here on
    {
        auto subscriber = Subscriber::connect(options);
        INFO(subscriber.status().to_string());
        REQUIRE(subscriber.is_ok());
        REQUIRE((*subscriber)->subscribe({{"redeliver/#", 1}}, seconds_from_now(10)).is_ok());
        TestPublisher publisher(broker.uri());
        for (int i = 0; i < 5; ++i) publisher.publish("redeliver/data", std::to_string(i));
        std::vector<Message> received;
        for (int i = 0; i < 5; ++i) {
            Result<Message> message = (*subscriber)->receive(seconds_from_now(30));
            REQUIRE(message.is_ok());
            CHECK_FALSE(message->dup);
            received.push_back(std::move(message).value());
        }
        // The first two are done; "0" and "1" must not come back.
        REQUIRE((*subscriber)->acknowledge(received[0].packet_id).is_ok());
        REQUIRE((*subscriber)->acknowledge(received[1].packet_id).is_ok());
        REQUIRE((*subscriber)->disconnect().is_ok());
    }

    options.clean_start = false;
    auto again = Subscriber::connect(options);
    INFO(again.status().to_string());
    REQUIRE(again.is_ok());
    CHECK((*again)->session().session_present);
    // The marker, QoS 0 on the stored subscription, follows the redelivered ones.
    TestPublisher publisher(broker.uri());
    publisher.publish("redeliver/data", "marker", 0);
    std::set<std::string> redelivered;
    for (;;) {
        Result<Message> message = (*again)->receive(seconds_from_now(30));
        INFO(message.status().to_string());
        REQUIRE(message.is_ok());
        if (message->payload == "marker") break;
        CHECK(message->dup);
        CHECK(message->qos == 1);
        redelivered.insert(message->payload);
        REQUIRE((*again)->acknowledge(message->packet_id).is_ok());
    }
    CHECK(redelivered == std::set<std::string>{"2", "3", "4"});
    REQUIRE((*again)->disconnect().is_ok());
}
