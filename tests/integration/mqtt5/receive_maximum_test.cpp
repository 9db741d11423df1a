// The broker sends as many unacknowledged QoS 1 messages as our Receive
// Maximum allows, and the next one only after an acknowledgement.
//
// How "no 33rd" is seen without a clock: after the QoS 1 messages the
// publisher sends a QoS 0 marker. QoS 0 is not counted against the Receive
// Maximum, so the broker sends it at once, on the same connection, after
// whatever QoS 1 messages it had decided to send: everything that arrives
// before the marker is everything the broker sent. One marker only: once
// mosquitto 2.0.11 had delivered a QoS 0 message to the session, it let two
// QoS 1 messages through for the next single PUBACK, one above the window
// (the subscriber then ends the connection with 0x93 Receive Maximum
// exceeded, as the specification asks of it).
#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

#include "mqtt5_harness.h"

using namespace outpost;
using namespace outpost::testing;
using bridge::mqtt5::Message;
using bridge::mqtt5::Subscriber;

namespace {

// Receives until the QoS 0 message `marker`; returns the QoS 1 ones before it.
std::vector<Message> until_marker(Subscriber* subscriber, const std::string& marker) {
    std::vector<Message> before;
    for (;;) {
        Result<Message> message = subscriber->receive(seconds_from_now(30));
        INFO(message.status().to_string());
        REQUIRE(message.is_ok());
        if (message->qos == 0 && message->payload == marker) return before;
        before.push_back(std::move(message).value());
    }
}

}  // namespace

TEST_CASE(
    "with Receive Maximum 32 the subscriber holds 32 messages and the broker sends no 33rd until "
    "one is acknowledged") {
    TestBroker broker;
    auto options = subscriber_options(broker, "rm-subscriber");
    options.receive_maximum = 32;
    auto subscriber = Subscriber::connect(options);
    INFO(subscriber.status().to_string());
    REQUIRE(subscriber.is_ok());
    REQUIRE((*subscriber)->subscribe({{"rm/#", 1}}, seconds_from_now(10)).is_ok());

    TestPublisher publisher(broker.uri());
    for (int i = 1; i <= 40; ++i) publisher.publish("rm/data", "message " + std::to_string(i));
    publisher.publish("rm/data", "marker 1", 0);

    std::vector<Message> first = until_marker(subscriber->get(), "marker 1");
    REQUIRE(first.size() == 32);
    CHECK((*subscriber)->held() == 32);
    CHECK(first.front().payload == "message 1");
    CHECK(first.back().payload == "message 32");

    // One acknowledgement frees one place: one of the 8 held back comes next.
    REQUIRE((*subscriber)->acknowledge(first.front().packet_id).is_ok());
    Result<Message> next = (*subscriber)->receive(seconds_from_now(30));
    INFO(next.status().to_string());
    REQUIRE(next.is_ok());
    CHECK((*subscriber)->held() == 32);
    std::set<std::string> late = {next->payload};

    // The rest arrive as the window frees. (mosquitto keeps their order;
    // mochi-mqtt sends messages queued behind the window in any order.)
    for (std::size_t i = 1; i < first.size(); ++i) {
        REQUIRE((*subscriber)->acknowledge(first[i].packet_id).is_ok());
    }
    REQUIRE((*subscriber)->acknowledge(next->packet_id).is_ok());
    for (int i = 34; i <= 40; ++i) {
        Result<Message> message = (*subscriber)->receive(seconds_from_now(30));
        INFO(message.status().to_string());
        REQUIRE(message.is_ok());
        late.insert(message->payload);
        REQUIRE((*subscriber)->acknowledge(message->packet_id).is_ok());
    }
    std::set<std::string> expected;
    for (int i = 33; i <= 40; ++i) expected.insert("message " + std::to_string(i));
    CHECK(late == expected);
    CHECK((*subscriber)->held() == 0);
    REQUIRE((*subscriber)->disconnect().is_ok());
}
