// The watchdog's rule (bridge/ops/stall_detector.h): stalled only when a message
// is in hand and neither a SEND_OK nor a RocketMQ answer came for longer than
// the limit; idle and RocketMQ outages are not stalls. The time points are
// inputs of the pure rule, not a clock.
#include "bridge/ops/stall_detector.h"

#include <catch2/catch.hpp>
#include <chrono>

#include "bridge/config.h"

using namespace outpost::bridge;
using std::chrono::milliseconds;
using std::chrono::seconds;

namespace {

const auto kStallBase = std::chrono::steady_clock::time_point{} + std::chrono::hours(1);

}  // namespace

TEST_CASE("an idle bridge is never stalled, however long nothing arrives", "[bridge]") {
    StallDetector detector(seconds(10));
    CHECK(detector.healthy({5, 5, 0}, kStallBase));
    CHECK(detector.healthy({5, 5, 0}, kStallBase + seconds(60)));
    CHECK(detector.healthy({5, 5, 0}, kStallBase + std::chrono::hours(5)));
}

TEST_CASE("a message in hand with no SEND_OK and no RocketMQ answer past the limit is a stall",
          "[bridge]") {
    StallDetector detector(seconds(10));
    REQUIRE(detector.healthy({5, 5, 0}, kStallBase));
    // Quiet time counts from the last look that saw the bridge idle or moving.
    CHECK(detector.healthy({6, 5, 0}, kStallBase + seconds(1)));  // received, in hand
    CHECK(detector.healthy({6, 5, 0}, kStallBase + seconds(10)));
    CHECK(detector.quiet_for() == seconds(10));  // not yet past the limit
    CHECK_FALSE(detector.healthy({6, 5, 0}, kStallBase + seconds(12)));
    CHECK(detector.quiet_for() == seconds(12));
    CHECK_FALSE(detector.healthy({6, 5, 0}, kStallBase + seconds(30)));
    // The SEND_OK finally comes: healthy again at once.
    CHECK(detector.healthy({6, 6, 0}, kStallBase + seconds(31)));
    CHECK(detector.quiet_for() == milliseconds(0));
}

TEST_CASE("failed RocketMQ answers while a message is held are signs of life, not a stall",
          "[bridge]") {
    StallDetector detector(seconds(10));
    REQUIRE(detector.healthy({1, 0, 0}, kStallBase));
    // RocketMQ is down for a minute: one failed attempt every 8 s.
    for (int second = 8, errors = 1; second <= 64; second += 8, ++errors) {
        INFO("at " << second << " s");
        CHECK(detector.healthy({1, 0, static_cast<std::uint64_t>(errors)}, kStallBase + seconds(second)));
    }
    // And when the answers stop too, the stall counts from the last one.
    CHECK(detector.healthy({1, 0, 8}, kStallBase + seconds(70)));
    CHECK_FALSE(detector.healthy({1, 0, 8}, kStallBase + seconds(75)));
}

TEST_CASE("a refused identity holding a message is an answer, not a stall", "[bridge]") {
    StallDetector detector(seconds(10));
    REQUIRE(detector.healthy({1, 0, 1, true}, kStallBase));
    // The refused message is held with no further attempt until an operator
    // fixes the credentials: no new answer for minutes, still not a stall.
    CHECK(detector.healthy({1, 0, 1, true}, kStallBase + seconds(30)));
    CHECK(detector.healthy({2, 0, 1, true}, kStallBase + std::chrono::minutes(10)));
    CHECK(detector.quiet_for() == milliseconds(0));
    // Without the refusal, the same silence is a stall.
    StallDetector silent(seconds(10));
    REQUIRE(silent.healthy({1, 0, 1, false}, kStallBase));
    CHECK_FALSE(silent.healthy({1, 0, 1, false}, kStallBase + seconds(30)));
}

TEST_CASE("new messages arriving while none settles do not hide a stall", "[bridge]") {
    StallDetector detector(seconds(10));
    REQUIRE(detector.healthy({1, 0, 0}, kStallBase));
    CHECK(detector.healthy({2, 0, 0}, kStallBase + seconds(5)));
    CHECK_FALSE(detector.healthy({3, 0, 0}, kStallBase + seconds(11)));
}

TEST_CASE("the stall limit covers one send with its attempts, the retry pause and the pace",
          "[bridge]") {
    BridgeConfig config;
    config.rocketmq.send_timeout_ms = 3000;
    config.rocketmq.max_attempts = 3;
    config.rocketmq.retry_pause_max_ms = 5000;
    CHECK(stall_limit_for(config) == milliseconds(28000));
    config.limits.max_messages_per_s = 0.5;  // one slot every 2 s
    CHECK(stall_limit_for(config) == milliseconds(2 * (14000 + 2001)));
}
