// The publisher's latency ring: nearest-rank quantiles over the most recent
// samples only, and samples outside 32 bits kept at the edge, not wrapped.
#include "publish/latency_sampler.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>

using outpost::publish::LatencySampler;

TEST_CASE("quantiles are nearest-rank over the kept samples, -1 when there are none") {
    LatencySampler sampler(200);
    CHECK(sampler.quantiles().p50 == -1);
    CHECK(sampler.quantiles().p99 == -1);
    for (int64_t sample = 100; sample >= 1; --sample) sampler.record(sample);
    const LatencySampler::Quantiles q = sampler.quantiles();
    CHECK(q.p50 == 50);
    CHECK(q.p99 == 99);
}

TEST_CASE("a full ring answers for the most recent samples only") {
    LatencySampler sampler(10);
    for (int64_t sample = 1; sample <= 10; ++sample) sampler.record(sample);
    for (int i = 0; i < 9; ++i) sampler.record(1000);
    const LatencySampler::Quantiles q = sampler.quantiles();
    CHECK(q.p50 == 1000);  // nine of the ten kept are 1000; only 10 is left
    CHECK(q.p99 == 1000);
    sampler.record(5);  // overwrites 10, the oldest left
    CHECK(sampler.quantiles().p50 == 1000);
    for (int i = 0; i < 9; ++i) sampler.record(7);
    CHECK(sampler.quantiles().p99 == 7);
}

TEST_CASE("samples beyond 32 bits are kept as the largest, negative ones as 0") {
    LatencySampler sampler(4);
    sampler.record(std::numeric_limits<int64_t>::max());
    sampler.record(int64_t{1} << 32);  // would wrap to 0 if truncated
    sampler.record(-5);
    sampler.record(-5);
    const LatencySampler::Quantiles q = sampler.quantiles();
    CHECK(q.p50 == 0);
    CHECK(q.p99 == std::numeric_limits<int32_t>::max());
}
