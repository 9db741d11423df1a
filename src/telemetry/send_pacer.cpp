#include "telemetry/send_pacer.h"

#include <algorithm>
#include <cmath>

namespace outpost::telemetry {

SendPacer::SendPacer(uint32_t per_second, uint32_t burst, Clock::time_point now)
    : per_second_(per_second), burst_(std::max<uint32_t>(1, burst)), tokens_(burst_), last_(now) {}

void SendPacer::refill(Clock::time_point now) {
    if (now <= last_) return;
    const double elapsed = std::chrono::duration<double>(now - last_).count();
    tokens_ = std::min(burst_, tokens_ + elapsed * per_second_);
    last_ = now;
}

std::chrono::microseconds SendPacer::wait_needed(Clock::time_point now) {
    if (per_second_ <= 0) return std::chrono::microseconds(0);
    refill(now);
    if (tokens_ >= 1) return std::chrono::microseconds(0);
    return std::chrono::microseconds(
        static_cast<int64_t>(std::ceil((1 - tokens_) / per_second_ * 1e6)));
}

void SendPacer::take(Clock::time_point now) {
    if (per_second_ <= 0) return;
    refill(now);
    tokens_ -= 1;
}

}  // namespace outpost::telemetry
