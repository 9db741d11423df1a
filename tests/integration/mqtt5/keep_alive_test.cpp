// An idle subscriber keeps its connection: receive() sends PINGREQ when
// the keep-alive interval passed without a packet from us, and takes the
// PINGRESP. mosquitto closes a connection silent for 1.5 times the
// interval, checking every few seconds, so a connection still open after
// seven intervals of one second has pinged.
#include <catch2/catch.hpp>
#include <string>

#include "mqtt5_harness.h"

using namespace outpost;
using namespace outpost::testing;
using bridge::mqtt5::Message;
using bridge::mqtt5::Subscriber;

TEST_CASE(
    "an idle subscriber sends PINGREQ each keep-alive interval and its connection stays open") {
    TestBroker broker;
    auto options = subscriber_options(broker, "keep-alive-subscriber");
    options.keep_alive_seconds = 1;
    auto subscriber = Subscriber::connect(options);
    INFO(subscriber.status().to_string());
    REQUIRE(subscriber.is_ok());
    REQUIRE((*subscriber)->subscribe({{"idle/#", 1}}, seconds_from_now(10)).is_ok());

    Result<Message> nothing = (*subscriber)->receive(seconds_from_now(7));
    INFO(nothing.status().to_string());
    CHECK(nothing.status().code() == StatusCode::kTimeout);

    // Still connected: a message published now arrives.
    TestPublisher publisher(broker.uri());
    publisher.publish("idle/data", "after the silence");
    Result<Message> message = (*subscriber)->receive(seconds_from_now(30));
    INFO(message.status().to_string());
    REQUIRE(message.is_ok());
    CHECK(message->payload == "after the silence");
    CHECK(broker.log().find("Received PINGREQ from keep-alive-subscriber") != std::string::npos);
}
