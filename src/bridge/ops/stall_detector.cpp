#include "bridge/ops/stall_detector.h"

#include <algorithm>

namespace outpost::bridge {

std::chrono::milliseconds stall_limit_for(const BridgeConfig& config) {
    const RocketMqConfig& rocketmq = config.rocketmq;
    std::chrono::milliseconds quiet(static_cast<std::int64_t>(rocketmq.send_timeout_ms) *
                                        rocketmq.max_attempts +
                                    rocketmq.retry_pause_max_ms);
    if (config.limits.max_messages_per_s > 0) {
        quiet += std::chrono::milliseconds(
            static_cast<std::int64_t>(1000.0 / config.limits.max_messages_per_s) + 1);
    }
    return 2 * quiet;
}

bool StallDetector::healthy(const ForwardingProgress& progress,
                            std::chrono::steady_clock::time_point now) {
    const bool pending = progress.received > progress.settled;
    const bool moved = !seen_ || progress.settled != last_.settled ||
                       progress.rocketmq_errors != last_.rocketmq_errors;
    seen_ = true;
    last_ = progress;
    if (!pending || moved || progress.refused) {
        last_sign_of_life_ = now;
        quiet_for_ = std::chrono::milliseconds(0);
        return true;
    }
    quiet_for_ = std::chrono::duration_cast<std::chrono::milliseconds>(now - last_sign_of_life_);
    return quiet_for_ <= limit_;
}

}  // namespace outpost::bridge
