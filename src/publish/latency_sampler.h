// Percentiles over the most recent latency samples (a fixed ring, so memory
// stays bounded on a gateway that runs for years).
#ifndef OUTPOST_PUBLISH_LATENCY_SAMPLER_H
#define OUTPOST_PUBLISH_LATENCY_SAMPLER_H

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace outpost::publish {

// Thread-safe. Samples are kept as 32-bit values (16 KiB per 4,096 samples:
// the publisher keeps two rings, and a gateway counts its heap in KiB);
// a sample above INT32_MAX is kept as INT32_MAX (35 minutes in
// microseconds, far beyond any acknowledgement that still counts).
class LatencySampler final {
  public:
    explicit LatencySampler(size_t capacity = 4096) : capacity_(capacity) {}

    // The quantiles a status reads at once; -1 each when no sample is kept.
    struct Quantiles {
        int64_t p50 = -1;
        int64_t p99 = -1;
    };

    // One latency, in whatever unit the owner chose (the publisher uses
    // microseconds); the quantiles answer in the same unit. Negative
    // samples are kept as 0.
    void record(int64_t sample);
    // The median and the 99th percentile of the kept samples, nearest rank
    // (the smallest sample with at least that fraction at or below it),
    // from one copy of the ring.
    Quantiles quantiles() const;

  private:
    const size_t capacity_;
    mutable std::mutex mutex_;
    std::vector<int32_t> samples_;  // guarded by mutex_
    size_t next_ = 0;               // guarded by mutex_; ring position once full
};

}  // namespace outpost::publish

#endif  // OUTPOST_PUBLISH_LATENCY_SAMPLER_H
