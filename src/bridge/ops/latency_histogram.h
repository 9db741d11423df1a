// Send latency percentiles in fixed memory: logarithmic buckets, four per
// doubling, so a percentile is exact to within about 19 % whatever the
// number of samples, and recording is O(1) with no allocation.
#ifndef OUTPOST_BRIDGE_OPS_LATENCY_HISTOGRAM_H
#define OUTPOST_BRIDGE_OPS_LATENCY_HISTOGRAM_H

#include <array>
#include <chrono>
#include <cstdint>
#include <utility>
#include <vector>

namespace outpost::bridge {

// Not thread-safe; BridgeStats guards it.
class LatencyHistogram final {
  public:
    void record(std::chrono::microseconds latency);

    // The `fraction` (0..1] quantile in microseconds: the geometric middle of
    // the bucket holding it. 0 when nothing was recorded.
    double percentile_us(double fraction) const;

    std::uint64_t count() const { return count_; }
    // Sum of the recorded latencies (after rounding up to 1 us).
    std::uint64_t sum_us() const { return sum_us_; }
    // Samples below `bound`. Exact when `bound` is a bucket edge (any power
    // of two microseconds is one): what a Prometheus "le" bucket needs.
    std::uint64_t count_below(std::chrono::microseconds bound) const;

    // Adds `other`'s samples: the totals over the session processes.
    void merge(const LatencyHistogram& other);
    // The non-empty buckets as (index, count) pairs, and the histogram they
    // came from (with its sum): how a session process reports its latencies
    // (bridge/processes/figures_line.h). from_buckets ignores indexes out of range.
    std::vector<std::pair<int, std::uint64_t>> nonzero_buckets() const;
    static LatencyHistogram from_buckets(const std::vector<std::pair<int, std::uint64_t>>& buckets,
                                         std::uint64_t sum_us);

  private:
    static constexpr int kBucketsPerDoubling = 4;
    static constexpr int kBuckets = 40 * kBucketsPerDoubling;  // up to 2^40 us (12 days)

    std::array<std::uint64_t, kBuckets> buckets_{};
    std::uint64_t count_ = 0;
    std::uint64_t sum_us_ = 0;
};

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_OPS_LATENCY_HISTOGRAM_H
