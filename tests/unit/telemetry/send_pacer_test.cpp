// The telemetry sender's rate cap, on a clock the test moves by hand.
#include "telemetry/send_pacer.h"

#include <catch2/catch.hpp>
#include <chrono>

using namespace outpost::telemetry;
using std::chrono::microseconds;
using std::chrono::milliseconds;

namespace {

// How many publishes the pacer lets through in `span`, taking each as soon
// as it is allowed.
int allowed_in(SendPacer& pacer, SendPacer::Clock::time_point& now, milliseconds span) {
    const auto end = now + span;
    int sent = 0;
    while (now < end) {
        const microseconds wait = pacer.wait_needed(now);
        if (wait.count() == 0) {
            pacer.take(now);
            ++sent;
        } else {
            now += wait;
        }
    }
    return sent;
}

}  // namespace

TEST_CASE("a full bucket lets a burst through at once, then asks to wait") {
    auto now = SendPacer::Clock::time_point();
    SendPacer pacer(1000, 100, now);
    for (int i = 0; i < 100; ++i) {
        REQUIRE(pacer.wait_needed(now).count() == 0);
        pacer.take(now);
    }
    CHECK(pacer.wait_needed(now) == microseconds(1000));  // one token takes 1 ms at 1000/s
}

TEST_CASE("over a long span the pacer holds the average rate") {
    auto now = SendPacer::Clock::time_point();
    SendPacer pacer(5000, 500, now);
    const int sent = allowed_in(pacer, now, milliseconds(10000));
    // 10 s at 5000/s plus the initial burst, give or take one token.
    CHECK(sent >= 50000 + 500 - 1);
    CHECK(sent <= 50000 + 500 + 1);
}

TEST_CASE("an idle pacer refills only up to its burst") {
    auto now = SendPacer::Clock::time_point();
    SendPacer pacer(100, 10, now);
    now += std::chrono::hours(1);
    int at_once = 0;
    while (pacer.wait_needed(now).count() == 0) {
        pacer.take(now);
        ++at_once;
    }
    CHECK(at_once == 10);
}

TEST_CASE("a rate of zero never asks to wait") {
    auto now = SendPacer::Clock::time_point();
    SendPacer pacer(0, 0, now);
    for (int i = 0; i < 100000; ++i) pacer.take(now);
    CHECK(pacer.wait_needed(now).count() == 0);
}
