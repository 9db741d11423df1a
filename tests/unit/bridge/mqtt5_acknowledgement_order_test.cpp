// PUBACKs go out in the order the messages arrived (MQTT v5, 4.6), whatever
// order the application acknowledges them in.
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "bridge/mqtt/v5/acknowledgement_order.h"

using outpost::StatusCode;
using outpost::bridge::mqtt5::AcknowledgementOrder;

TEST_CASE("an acknowledgement waits for every earlier arrival, then releases the run behind it") {
    AcknowledgementOrder order;
    for (uint16_t id : {7, 3, 9, 1}) REQUIRE(order.arrived(id));
    std::vector<uint16_t> ready;
    REQUIRE(order.acknowledge(9, &ready).is_ok());
    REQUIRE(order.acknowledge(3, &ready).is_ok());
    CHECK(ready.empty());
    CHECK(order.held() == 4);
    CHECK(order.waiting() == 2);
    REQUIRE(order.acknowledge(7, &ready).is_ok());
    CHECK(ready == std::vector<uint16_t>{7, 3, 9});
    CHECK(order.held() == 1);
    ready.clear();
    REQUIRE(order.acknowledge(1, &ready).is_ok());
    CHECK(ready == std::vector<uint16_t>{1});
    CHECK(order.held() == 0);
    order.check_invariants();
}

TEST_CASE("an identifier not held, acknowledged twice, or reused before its PUBACK is refused") {
    AcknowledgementOrder order;
    std::vector<uint16_t> ready;
    CHECK(order.acknowledge(5, &ready).code() == StatusCode::kInvalidArgument);
    REQUIRE(order.arrived(5));
    REQUIRE(order.arrived(6));
    CHECK_FALSE(order.arrived(5));
    REQUIRE(order.acknowledge(6, &ready).is_ok());
    CHECK(order.acknowledge(6, &ready).code() == StatusCode::kInvalidArgument);
    CHECK(ready.empty());
    REQUIRE(order.acknowledge(5, &ready).is_ok());
    CHECK(ready == std::vector<uint16_t>{5, 6});
    // Released identifiers may be used again.
    CHECK(order.arrived(5));
}
