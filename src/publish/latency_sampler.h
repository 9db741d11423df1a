// Percentiles over the most recent latency samples (a fixed ring, so memory
// stays bounded on a gateway that runs for years).
#ifndef OUTPOST_PUBLISH_LATENCY_SAMPLER_H
#define OUTPOST_PUBLISH_LATENCY_SAMPLER_H

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

namespace outpost::publish {

// Thread-safe.
class LatencySampler final {
  public:
    explicit LatencySampler(size_t capacity = 4096) : capacity_(capacity) {}

    // One latency, in whatever unit the owner chose (the publisher uses
    // microseconds); percentile() answers in the same unit.
    void record(int64_t sample);
    // The `fraction` (0..1) quantile of the kept samples, -1 when empty.
    int64_t percentile(double fraction) const;

  private:
    const size_t capacity_;
    mutable std::mutex mutex_;
    std::vector<int64_t> samples_;  // guarded by mutex_
    size_t next_ = 0;               // guarded by mutex_; ring position once full
};

}  // namespace outpost::publish

#endif  // OUTPOST_PUBLISH_LATENCY_SAMPLER_H
