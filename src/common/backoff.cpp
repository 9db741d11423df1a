#include "common/backoff.h"

#include <algorithm>

namespace outpost {

Backoff Backoff::jittered(std::chrono::milliseconds initial, std::chrono::milliseconds max,
                          std::unique_ptr<RandomSource> random) {
    return Backoff(initial, max, std::move(random));
}

Backoff Backoff::exact(std::chrono::milliseconds initial, std::chrono::milliseconds max) {
    return Backoff(initial, max, nullptr);
}

Backoff::Backoff(std::chrono::milliseconds initial, std::chrono::milliseconds max,
                 std::unique_ptr<RandomSource> random)
    : initial_ms_(std::max<int64_t>(1, initial.count())),
      max_ms_(std::max(max.count(), initial_ms_)),
      random_(std::move(random)) {}

std::chrono::milliseconds Backoff::base(int64_t failures) const {
    int64_t delay = initial_ms_;
    // Doubling stops at the cap, so neither a long outage (failures in the
    // millions) nor a cap near INT64_MAX can overflow.
    for (int64_t i = 1; i < failures && delay < max_ms_; ++i) {
        delay = delay > max_ms_ / 2 ? max_ms_ : delay * 2;
    }
    return std::chrono::milliseconds(std::min(delay, max_ms_));
}

std::chrono::milliseconds Backoff::delay(int64_t failures) {
    const int64_t base_ms = base(failures).count();
    if (!random_) return std::chrono::milliseconds(base_ms);
    return std::chrono::milliseconds(random_->uniform(std::max<int64_t>(1, base_ms / 2), base_ms));
}

}  // namespace outpost
