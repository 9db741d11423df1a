#include "publish/latency_sampler.h"

#include <algorithm>
#include <cmath>

namespace outpost::publish {

void LatencySampler::record(int64_t sample) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (samples_.size() < capacity_) {
        samples_.push_back(sample);
        return;
    }
    samples_[next_] = sample;
    next_ = (next_ + 1) % capacity_;
}

int64_t LatencySampler::percentile(double fraction) const {
    std::vector<int64_t> sorted;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        sorted = samples_;
    }
    if (sorted.empty()) return -1;
    // Nearest rank: the smallest sample with at least `fraction` at or below it.
    size_t rank = static_cast<size_t>(std::ceil(fraction * static_cast<double>(sorted.size())));
    rank = std::clamp<size_t>(rank, 1, sorted.size()) - 1;
    std::nth_element(sorted.begin(), sorted.begin() + static_cast<std::ptrdiff_t>(rank),
                     sorted.end());
    return sorted[rank];
}

}  // namespace outpost::publish
