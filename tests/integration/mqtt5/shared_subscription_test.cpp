// Two subscribers in one shared subscription ($share/GROUP/FILTER) split
// the messages: each gets some, together they get each exactly once.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "mqtt5_harness.h"

using namespace outpost;
using namespace outpost::testing;
using bridge::mqtt5::Message;
using bridge::mqtt5::Subscriber;

TEST_CASE(
    "a shared subscription splits the messages between two subscribers, each message to one") {
    TestBroker broker;
    auto first = Subscriber::connect(subscriber_options(broker, "shared-a"));
    auto second = Subscriber::connect(subscriber_options(broker, "shared-b"));
    REQUIRE(first.is_ok());
    REQUIRE(second.is_ok());
    REQUIRE((*first)->subscribe({{"$share/bridge/shared/#", 1}}, seconds_from_now(10)).is_ok());
    REQUIRE((*second)->subscribe({{"$share/bridge/shared/#", 1}}, seconds_from_now(10)).is_ok());

    constexpr int kMessages = 40;
    TestPublisher publisher(broker.uri());
    for (int i = 0; i < kMessages; ++i) publisher.publish("shared/data", std::to_string(i));

    std::map<std::string, int> times_received;
    int by_first = 0;
    int by_second = 0;
    const auto limit = seconds_from_now(60);
    while (by_first + by_second < kMessages && std::chrono::steady_clock::now() < limit) {
        for (Subscriber* subscriber : {first->get(), second->get()}) {
            Result<Message> message = subscriber->receive(std::chrono::steady_clock::now() +
                                                          std::chrono::milliseconds(50));
            if (message.status().code() == StatusCode::kTimeout) continue;
            INFO(message.status().to_string());
            REQUIRE(message.is_ok());
            ++times_received[message->payload];
            ++(subscriber == first->get() ? by_first : by_second);
            REQUIRE(subscriber->acknowledge(message->packet_id).is_ok());
        }
    }
    CHECK(by_first > 0);
    CHECK(by_second > 0);
    REQUIRE(times_received.size() == kMessages);
    for (const auto& [payload, times] : times_received) CHECK(times == 1);
}
