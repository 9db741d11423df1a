// Acknowledgements the application gives out of order reach the broker as
// PUBACKs in the order the messages arrived (MQTT v5, 4.6), read from the
// broker's own log of the PUBACKs it received.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "eventually.h"
#include "mqtt5_harness.h"

using namespace outpost;
using namespace outpost::testing;
using bridge::mqtt5::Message;
using bridge::mqtt5::Subscriber;

TEST_CASE("acknowledgements given out of order are sent as PUBACKs in arrival order") {
    TestBroker broker;
    auto subscriber = Subscriber::connect(subscriber_options(broker, "order-subscriber"));
    INFO(subscriber.status().to_string());
    REQUIRE(subscriber.is_ok());
    REQUIRE((*subscriber)->subscribe({{"order/#", 1}}, seconds_from_now(10)).is_ok());
    TestPublisher publisher(broker.uri());
    for (int i = 0; i < 5; ++i) publisher.publish("order/data", std::to_string(i));

    std::vector<int> arrival;
    for (int i = 0; i < 5; ++i) {
        Result<Message> message = (*subscriber)->receive(seconds_from_now(30));
        REQUIRE(message.is_ok());
        CHECK(message->payload == std::to_string(i));
        arrival.push_back(message->packet_id);
    }

    // 3rd and 5th first: both wait for the 1st.
    REQUIRE((*subscriber)->acknowledge(arrival[2]).is_ok());
    REQUIRE((*subscriber)->acknowledge(arrival[4]).is_ok());
    CHECK((*subscriber)->held() == 5);
    CHECK((*subscriber)->waiting() == 2);
    // The 1st goes out alone; the 2nd then releases 2, 3 (4 still waits).
    REQUIRE((*subscriber)->acknowledge(arrival[0]).is_ok());
    REQUIRE((*subscriber)->acknowledge(arrival[1]).is_ok());
    CHECK((*subscriber)->held() == 2);
    REQUIRE((*subscriber)->acknowledge(arrival[3]).is_ok());
    CHECK((*subscriber)->held() == 0);
    // An identifier acknowledged already is refused, changing nothing.
    CHECK((*subscriber)->acknowledge(arrival[3]).code() == StatusCode::kInvalidArgument);

    REQUIRE(eventually([&] { return broker.pubacks_from("order-subscriber").size() >= 5; }));
    CHECK(broker.pubacks_from("order-subscriber") == arrival);
    REQUIRE((*subscriber)->disconnect().is_ok());
}
