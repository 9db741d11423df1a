#include "bridge/ops/latency_histogram.h"

#include <algorithm>
#include <cmath>

namespace outpost::bridge {

void LatencyHistogram::record(std::chrono::microseconds latency) {
    const double us = std::max<double>(1.0, static_cast<double>(latency.count()));
    const int bucket = static_cast<int>(std::log2(us) * kBucketsPerDoubling);
    ++buckets_[static_cast<std::size_t>(std::clamp(bucket, 0, kBuckets - 1))];
    ++count_;
    sum_us_ += static_cast<std::uint64_t>(us);
}

std::uint64_t LatencyHistogram::count_below(std::chrono::microseconds bound) const {
    if (bound.count() <= 1) return 0;
    // Bucket b holds [2^(b/4), 2^((b+1)/4)) us: those ending at or below the
    // bound are the buckets before the bound's own.
    const double edge = std::log2(static_cast<double>(bound.count())) * kBucketsPerDoubling;
    const int end = std::clamp(static_cast<int>(std::floor(edge)), 0, kBuckets);
    std::uint64_t below = 0;
    for (int bucket = 0; bucket < end; ++bucket)
        below += buckets_[static_cast<std::size_t>(bucket)];
    return below;
}

double LatencyHistogram::percentile_us(double fraction) const {
    if (count_ == 0) return 0;
    const double rank = std::clamp(fraction, 0.0, 1.0) * static_cast<double>(count_);
    std::uint64_t seen = 0;
    for (int bucket = 0; bucket < kBuckets; ++bucket) {
        seen += buckets_[static_cast<std::size_t>(bucket)];
        if (seen > 0 && static_cast<double>(seen) >= rank) {
            return std::exp2((bucket + 0.5) / kBucketsPerDoubling);
        }
    }
    return std::exp2(static_cast<double>(kBuckets) / kBucketsPerDoubling);
}

void LatencyHistogram::merge(const LatencyHistogram& other) {
    for (std::size_t bucket = 0; bucket < buckets_.size(); ++bucket)
        buckets_[bucket] += other.buckets_[bucket];
    count_ += other.count_;
    sum_us_ += other.sum_us_;
}

std::vector<std::pair<int, std::uint64_t>> LatencyHistogram::nonzero_buckets() const {
    std::vector<std::pair<int, std::uint64_t>> buckets;
    for (int bucket = 0; bucket < kBuckets; ++bucket) {
        const std::uint64_t count = buckets_[static_cast<std::size_t>(bucket)];
        if (count > 0) buckets.emplace_back(bucket, count);
    }
    return buckets;
}

LatencyHistogram LatencyHistogram::from_buckets(
    const std::vector<std::pair<int, std::uint64_t>>& buckets, std::uint64_t sum_us) {
    LatencyHistogram histogram;
    for (const auto& [bucket, count] : buckets) {
        if (bucket < 0 || bucket >= kBuckets) continue;
        histogram.buckets_[static_cast<std::size_t>(bucket)] += count;
        histogram.count_ += count;
    }
    histogram.sum_us_ = sum_us;
    return histogram;
}

}  // namespace outpost::bridge
