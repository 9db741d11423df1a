// When is the bridge "stalled"? The rule the systemd watchdog enforces
// (bridge/ops/watchdog.h), kept pure so that it is tested on its own.
//
// Stalled: work is pending (a message was received and is not yet settled:
// forwarded, quarantined or suppressed as a duplicate) and for longer than
// the stall limit the forwarding path has shown no sign of life: no SEND_OK
// and no failed RocketMQ answer either.
//
// Not stalled:
//  - idle: nothing received that is not settled, however long;
//  - RocketMQ down or refusing: the held message is retried and every failed
//    attempt is recorded (rocketmq_errors), at least once per
//    send_timeout_ms x max_attempts + retry_pause_max_ms. Restarting the
//    bridge would not help; the outage shows in the metrics instead;
//  - MQTT disconnected with nothing in hand (the session reconnects itself);
//  - RocketMQ refused the bridge's identity (wrong key or secret, no
//    permission, untrusted certificate): the message is held with no further
//    attempt until an operator fixes the credentials and restarts, so no
//    answer comes, but the bridge did get one and says why
//    (rocketmq_refused in status and metrics). Restarting would only loop.
// So a stall is the forwarding thread itself hanging (a send that never
// returns, a deadlock, a paho callback that never ends), which a restart
// does fix: the broker redelivers what was not acknowledged.
#ifndef OUTPOST_BRIDGE_OPS_STALL_DETECTOR_H
#define OUTPOST_BRIDGE_OPS_STALL_DETECTOR_H

#include <chrono>
#include <cstdint>

#include "bridge/config.h"

namespace outpost::bridge {

// Counters read from BridgeStats (BridgeFigures) at one moment.
struct ForwardingProgress {
    std::uint64_t received = 0;
    std::uint64_t settled = 0;          // forwarded + quarantined + duplicates
    std::uint64_t rocketmq_errors = 0;  // failed send attempts
    bool refused = false;               // RocketMQ refused our identity (rocketmq_refused)
};

// The stall limit for `config`: twice the longest quiet spell a healthy
// bridge can have with a message in hand (one send with all its attempts,
// the retry pause after it, and the wait for a forwarding slot under
// limits.max_messages_per_s).
std::chrono::milliseconds stall_limit_for(const BridgeConfig& config);

// Not thread-safe: one watchdog thread feeds it.
class StallDetector final {
  public:
    explicit StallDetector(std::chrono::milliseconds stall_limit) : limit_(stall_limit) {}

    // Records `progress` as seen at `now` (monotonic, not decreasing) and
    // returns false when the bridge is stalled by the rule above.
    bool healthy(const ForwardingProgress& progress, std::chrono::steady_clock::time_point now);

    // How long the forwarding path has been quiet with work pending (zero
    // when idle or moving), as of the last healthy() call.
    std::chrono::milliseconds quiet_for() const { return quiet_for_; }

  private:
    const std::chrono::milliseconds limit_;
    bool seen_ = false;
    ForwardingProgress last_{};
    std::chrono::steady_clock::time_point last_sign_of_life_{};
    std::chrono::milliseconds quiet_for_{0};
};

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_OPS_STALL_DETECTOR_H
