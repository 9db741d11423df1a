// The one backoff policy (common/backoff.h): the doubling curve, its cap,
// and the equal-jitter bounds, with the random source pinned by the test.
#include "common/backoff.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <limits>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "common/random_source.h"

namespace {

using outpost::Backoff;
using outpost::RandomSource;
using std::chrono::milliseconds;

// Answers every draw with its lowest or highest allowed value, and records
// the bounds it was asked for.
class PinnedRandom final : public RandomSource {
  public:
    enum class Pick { kLowest, kHighest };
    PinnedRandom(Pick pick, std::vector<std::pair<int64_t, int64_t>>* asked)
        : pick_(pick), asked_(asked) {}

    int64_t uniform(int64_t low, int64_t high) override {
        asked_->emplace_back(low, high);
        return pick_ == Pick::kLowest ? low : high;
    }

  private:
    Pick pick_;
    std::vector<std::pair<int64_t, int64_t>>* asked_;
};

std::vector<int64_t> first_delays(Backoff& backoff, int count) {
    std::vector<int64_t> delays;
    for (int failures = 1; failures <= count; ++failures) {
        delays.push_back(backoff.delay(failures).count());
    }
    return delays;
}

}  // namespace

TEST_CASE("without jitter the delay doubles from initial and stays at the cap") {
    Backoff backoff = Backoff::exact(milliseconds(100), milliseconds(1000));
    CHECK(first_delays(backoff, 7) == std::vector<int64_t>{100, 200, 400, 800, 1000, 1000, 1000});
}

TEST_CASE("a failure count below one counts as one") {
    Backoff backoff = Backoff::exact(milliseconds(250), milliseconds(4000));
    CHECK(backoff.delay(0) == milliseconds(250));
    CHECK(backoff.delay(-5) == milliseconds(250));
}

TEST_CASE("a week of failures stays at the cap without overflowing") {
    Backoff backoff = Backoff::exact(milliseconds(500), milliseconds(60000));
    CHECK(backoff.delay(1'000'000'000'000) == milliseconds(60000));

    const auto largest = milliseconds(std::numeric_limits<int64_t>::max());
    Backoff huge_cap = Backoff::exact(milliseconds(1), largest);
    CHECK(huge_cap.base(62) == milliseconds(int64_t{1} << 61));
    CHECK(huge_cap.base(64) == largest);
    CHECK(huge_cap.base(1000) == largest);
}

TEST_CASE("an initial below 1 ms and a cap below the initial are corrected") {
    Backoff zero = Backoff::exact(milliseconds(0), milliseconds(8));
    CHECK(first_delays(zero, 5) == std::vector<int64_t>{1, 2, 4, 8, 8});
    Backoff inverted = Backoff::exact(milliseconds(300), milliseconds(100));
    CHECK(inverted.max() == milliseconds(300));
    CHECK(first_delays(inverted, 3) == std::vector<int64_t>{300, 300, 300});
}

TEST_CASE("jitter draws once per delay from [base/2, base]") {
    std::vector<std::pair<int64_t, int64_t>> asked;
    SECTION("the lowest draw is half the curve") {
        Backoff backoff =
            Backoff::jittered(milliseconds(100), milliseconds(1000),
                              std::make_unique<PinnedRandom>(PinnedRandom::Pick::kLowest, &asked));
        CHECK(first_delays(backoff, 6) == std::vector<int64_t>{50, 100, 200, 400, 500, 500});
    }
    SECTION("the highest draw is the curve itself, never above the cap") {
        Backoff backoff =
            Backoff::jittered(milliseconds(100), milliseconds(1000),
                              std::make_unique<PinnedRandom>(PinnedRandom::Pick::kHighest, &asked));
        CHECK(first_delays(backoff, 6) == std::vector<int64_t>{100, 200, 400, 800, 1000, 1000});
    }
    CHECK(asked == std::vector<std::pair<int64_t, int64_t>>{
                       {50, 100}, {100, 200}, {200, 400}, {400, 800}, {500, 1000}, {500, 1000}});
}

TEST_CASE("a jittered delay is never zero, even from a 1 ms curve") {
    std::vector<std::pair<int64_t, int64_t>> asked;
    Backoff backoff =
        Backoff::jittered(milliseconds(1), milliseconds(1),
                          std::make_unique<PinnedRandom>(PinnedRandom::Pick::kLowest, &asked));
    CHECK(backoff.delay(1) == milliseconds(1));
    CHECK(asked == std::vector<std::pair<int64_t, int64_t>>{{1, 1}});
}

TEST_CASE("seeded jitter stays within its bounds, reaches both ends and repeats per seed") {
    Backoff first =
        Backoff::jittered(milliseconds(10), milliseconds(10), outpost::seeded_random(42));
    Backoff again =
        Backoff::jittered(milliseconds(10), milliseconds(10), outpost::seeded_random(42));
    Backoff other =
        Backoff::jittered(milliseconds(10), milliseconds(10), outpost::seeded_random(43));
    std::set<int64_t> seen;
    std::vector<int64_t> first_draws, again_draws, other_draws;
    for (int i = 0; i < 2000; ++i) {
        first_draws.push_back(first.delay(3).count());
        again_draws.push_back(again.delay(3).count());
        other_draws.push_back(other.delay(3).count());
        seen.insert(first_draws.back());
    }
    CHECK(seen == std::set<int64_t>{5, 6, 7, 8, 9, 10});
    CHECK(first_draws == again_draws);
    CHECK(first_draws != other_draws);
}

TEST_CASE("over many draws every jittered delay follows the doubling curve, its cap and spread") {
    // The publisher's reconnect policy (PublisherOptions defaults: 500 ms
    // doubling to 60 s) with a real seeded source, 2000 draws per step.
    constexpr int64_t kInitial = 500;
    constexpr int64_t kCap = 60000;
    Backoff backoff =
        Backoff::jittered(milliseconds(kInitial), milliseconds(kCap), outpost::seeded_random(2026));
    int64_t expected_base = kInitial;
    for (int failures = 1; failures <= 20; ++failures) {
        INFO("failures " << failures);
        CHECK(backoff.base(failures).count() == expected_base);
        const int64_t low = expected_base / 2;
        int64_t smallest = expected_base, largest = 0, sum = 0;
        std::set<int64_t> distinct;
        constexpr int kDraws = 2000;
        for (int i = 0; i < kDraws; ++i) {
            const int64_t delay = backoff.delay(failures).count();
            smallest = std::min(smallest, delay);
            largest = std::max(largest, delay);
            sum += delay;
            distinct.insert(delay);
        }
        // Within [base/2, base], never above the cap.
        CHECK(smallest >= low);
        CHECK(largest <= expected_base);
        CHECK(largest <= kCap);
        // Spread over the whole range (uniform: mean 3/4 of the base, both
        // ends within 2% reached), so a fleet does not reconnect in lockstep.
        CHECK(smallest <= low + expected_base / 50);
        CHECK(largest >= expected_base - expected_base / 50);
        const double mean = static_cast<double>(sum) / kDraws;
        CHECK(mean > 0.72 * static_cast<double>(expected_base));
        CHECK(mean < 0.78 * static_cast<double>(expected_base));
        CHECK(distinct.size() > 200);
        expected_base = std::min(expected_base * 2, kCap);
    }
}

TEST_CASE("seed 0 picks a different seed for each source") {
    auto one = outpost::seeded_random(0);
    auto two = outpost::seeded_random(0);
    std::vector<int64_t> a, b;
    for (int i = 0; i < 16; ++i) {
        a.push_back(one->uniform(0, std::numeric_limits<int64_t>::max()));
        b.push_back(two->uniform(0, std::numeric_limits<int64_t>::max()));
    }
    CHECK(a != b);
}
