// Send latency percentiles in fixed memory.
#include "bridge/ops/latency_histogram.h"

#include <catch2/catch.hpp>

using outpost::bridge::LatencyHistogram;
using std::chrono::microseconds;

TEST_CASE("percentiles are within a bucket (about 19 %) of the true value") {
    LatencyHistogram histogram;
    for (int i = 1; i <= 1000; ++i) histogram.record(microseconds(i * 10));  // 10 us .. 10 ms
    CHECK(histogram.count() == 1000);
    CHECK(histogram.percentile_us(0.50) == Approx(5000).epsilon(0.2));
    CHECK(histogram.percentile_us(0.99) == Approx(9900).epsilon(0.2));
    CHECK(histogram.percentile_us(1.0) == Approx(10000).epsilon(0.2));
}

TEST_CASE("an empty histogram reports 0; extremes stay in range") {
    LatencyHistogram histogram;
    CHECK(histogram.percentile_us(0.5) == 0);
    histogram.record(microseconds(0));
    histogram.record(microseconds(-5));
    histogram.record(std::chrono::hours(24 * 365));
    CHECK(histogram.count() == 3);
    CHECK(histogram.percentile_us(0.5) < 2);
    CHECK(histogram.percentile_us(1.0) > 1e12);
}
