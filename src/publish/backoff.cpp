#include "publish/backoff.h"

#include <time.h>
#include <unistd.h>

#include <algorithm>

namespace outpost::publish {
namespace {

uint64_t pick_seed(uint64_t seed) {
    if (seed != 0) return seed;
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (static_cast<uint64_t>(::getpid()) << 32) ^ static_cast<uint64_t>(now.tv_nsec) ^
           static_cast<uint64_t>(now.tv_sec);
}

}  // namespace

Backoff::Backoff(int64_t initial_ms, int64_t max_ms, uint64_t seed)
    : initial_ms_(std::max<int64_t>(1, initial_ms)),
      max_ms_(std::max(max_ms, std::max<int64_t>(1, initial_ms))),
      random_(pick_seed(seed)) {}

int64_t Backoff::delay_ms(int64_t failures) {
    int64_t delay = initial_ms_;
    for (int64_t i = 1; i < failures && delay < max_ms_; ++i) delay *= 2;
    delay = std::min(delay, max_ms_);
    std::uniform_int_distribution<int64_t> jitter(delay / 2, delay);
    return jitter(random_);
}

}  // namespace outpost::publish
