// The telemetry ring on its own: order, drop-oldest, coalescing.
#include "telemetry/ring.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using namespace outpost::telemetry;

namespace {

TelemetryMessage message(const std::string& key, const std::string& payload) {
    return TelemetryMessage{key, payload};
}

// Everything left in the ring, oldest first, as "key=payload".
std::vector<std::string> drain(TelemetryRing& ring) {
    std::vector<std::string> out;
    while (auto next = ring.pop()) out.push_back(next->key + "=" + next->payload);
    return out;
}

}  // namespace

TEST_CASE("messages leave the ring in the order they were pushed") {
    TelemetryRing ring(8, false);
    REQUIRE(ring.push(message("a", "1")) == PushEffect::kQueued);
    REQUIRE(ring.push(message("b", "2")) == PushEffect::kQueued);
    REQUIRE(ring.push(message("a", "3")) == PushEffect::kQueued);
    CHECK(ring.size() == 3);
    CHECK(drain(ring) == std::vector<std::string>{"a=1", "b=2", "a=3"});
    CHECK_FALSE(ring.pop().has_value());
}

TEST_CASE("a full ring drops its oldest message to take the newest") {
    TelemetryRing ring(3, false);
    for (int i = 1; i <= 3; ++i) {
        REQUIRE(ring.push(message("k" + std::to_string(i), std::to_string(i))) ==
                PushEffect::kQueued);
    }
    CHECK(ring.push(message("k4", "4")) == PushEffect::kDroppedOldest);
    CHECK(ring.push(message("k5", "5")) == PushEffect::kDroppedOldest);
    CHECK(ring.size() == 3);
    CHECK(drain(ring) == std::vector<std::string>{"k3=3", "k4=4", "k5=5"});
}

TEST_CASE("a ring of capacity zero still holds the newest message") {
    TelemetryRing ring(0, false);
    CHECK(ring.capacity() == 1);
    ring.push(message("a", "1"));
    CHECK(ring.push(message("b", "2")) == PushEffect::kDroppedOldest);
    CHECK(drain(ring) == std::vector<std::string>{"b=2"});
}

TEST_CASE("coalescing replaces a waiting key's payload where it stands") {
    TelemetryRing ring(8, true);
    ring.push(message("temp", "20"));
    ring.push(message("rpm", "900"));
    CHECK(ring.push(message("temp", "21")) == PushEffect::kCoalesced);
    CHECK(ring.push(message("temp", "22")) == PushEffect::kCoalesced);
    CHECK(ring.size() == 2);
    CHECK(drain(ring) == std::vector<std::string>{"temp=22", "rpm=900"});
}

TEST_CASE("a key that has left the ring queues anew instead of coalescing") {
    TelemetryRing ring(8, true);
    ring.push(message("temp", "20"));
    REQUIRE(ring.pop()->payload == "20");
    CHECK(ring.push(message("temp", "21")) == PushEffect::kQueued);
    CHECK(drain(ring) == std::vector<std::string>{"temp=21"});
}

TEST_CASE("coalescing stays correct after drop-oldest and pops shift the line") {
    TelemetryRing ring(3, true);
    ring.push(message("a", "1"));
    ring.push(message("b", "1"));
    ring.push(message("c", "1"));
    CHECK(ring.push(message("d", "1")) == PushEffect::kDroppedOldest);  // a leaves
    CHECK(ring.push(message("a", "2")) == PushEffect::kDroppedOldest);  // b leaves
    CHECK(ring.push(message("c", "2")) == PushEffect::kCoalesced);
    CHECK(ring.push(message("a", "3")) == PushEffect::kCoalesced);
    REQUIRE(ring.pop()->key == "c");
    CHECK(ring.push(message("a", "4")) == PushEffect::kCoalesced);
    CHECK(ring.push(message("d", "2")) == PushEffect::kCoalesced);
    CHECK(drain(ring) == std::vector<std::string>{"d=2", "a=4"});
}

TEST_CASE("clearing the ring reports how many messages it held") {
    TelemetryRing ring(4, true);
    ring.push(message("a", "1"));
    ring.push(message("b", "1"));
    CHECK(ring.clear() == 2);
    CHECK(ring.size() == 0);
    CHECK(ring.push(message("a", "2")) == PushEffect::kQueued);
    CHECK(drain(ring) == std::vector<std::string>{"a=2"});
}
