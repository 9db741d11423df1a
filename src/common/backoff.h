// Capped exponential backoff: the one pacing policy of every retry loop in
// Outpost — reconnects (alarm publisher, telemetry lane, bridge session),
// rows the broker refused (alarm publisher) and sends RocketMQ failed
// (bridge delivery, RocketMQ producer).
//
// Curve: after `failures` >= 1 consecutive failures the base delay is
//   base(failures) = min(initial * 2^(failures - 1), max).
// With jitter, the delay is drawn uniformly from [max(1, base / 2), base]
// ("equal jitter"): never zero, never above the cap, and a fleet of gateways that
// lost the same broker at the same moment does not come back in lockstep.
// Without jitter, the delay is the base itself: for loops with few peers
// whose pace is part of their contract (the bridge's RocketMQ retries).
#ifndef OUTPOST_COMMON_BACKOFF_H
#define OUTPOST_COMMON_BACKOFF_H

#include <chrono>
#include <cstdint>
#include <memory>

#include "common/random_source.h"

namespace outpost {

// Not thread-safe: one owner thread (the jitter draws advance `random`).
class Backoff final {
  public:
    // Delays from `initial` doubling up to `max`, jittered by draws from
    // `random` (owned). An `initial` below 1 ms counts as 1 ms, a `max`
    // below `initial` as `initial`.
    static Backoff jittered(std::chrono::milliseconds initial, std::chrono::milliseconds max,
                            std::unique_ptr<RandomSource> random);
    // The same curve without jitter: delay(n) == base(n).
    static Backoff exact(std::chrono::milliseconds initial, std::chrono::milliseconds max);

    // The pause before try number `failures` + 1, after `failures`
    // consecutive failures (a count below 1 counts as 1). One draw from the
    // random source per call when jittered.
    std::chrono::milliseconds delay(int64_t failures);

    // The curve without jitter; the upper bound of delay(failures).
    std::chrono::milliseconds base(int64_t failures) const;

    std::chrono::milliseconds initial() const { return std::chrono::milliseconds(initial_ms_); }
    std::chrono::milliseconds max() const { return std::chrono::milliseconds(max_ms_); }

  private:
    Backoff(std::chrono::milliseconds initial, std::chrono::milliseconds max,
            std::unique_ptr<RandomSource> random);

    int64_t initial_ms_;
    int64_t max_ms_;
    std::unique_ptr<RandomSource> random_;  // null: no jitter
};

}  // namespace outpost

#endif  // OUTPOST_COMMON_BACKOFF_H
