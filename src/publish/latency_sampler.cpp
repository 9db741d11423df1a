#include "publish/latency_sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace outpost::publish {

namespace {

// The nearest-rank quantile of `samples`; reorders them partially.
int64_t nearest_rank(std::vector<int32_t>& samples, double fraction) {
    size_t rank = static_cast<size_t>(std::ceil(fraction * static_cast<double>(samples.size())));
    rank = std::clamp<size_t>(rank, 1, samples.size()) - 1;
    std::nth_element(samples.begin(), samples.begin() + static_cast<std::ptrdiff_t>(rank),
                     samples.end());
    return samples[rank];
}

}  // namespace

void LatencySampler::record(int64_t sample) {
    const auto kept =
        static_cast<int32_t>(std::clamp<int64_t>(sample, 0, std::numeric_limits<int32_t>::max()));
    std::lock_guard<std::mutex> lock(mutex_);
    if (samples_.size() < capacity_) {
        samples_.push_back(kept);
        return;
    }
    samples_[next_] = kept;
    next_ = (next_ + 1) % capacity_;
}

LatencySampler::Quantiles LatencySampler::quantiles() const {
    std::vector<int32_t> copy;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        copy = samples_;
    }
    Quantiles result;
    if (copy.empty()) return result;
    result.p50 = nearest_rank(copy, 0.50);
    result.p99 = nearest_rank(copy, 0.99);
    return result;
}

}  // namespace outpost::publish
