// A token bucket for the telemetry sender: at most `per_second` publishes
// per second on average, bursts of at most `burst`. It bounds the CPU and
// the share of paho's (process-wide) send thread that telemetry can take,
// whatever rate firmware offers; the ring absorbs the rest (drop-oldest).
#ifndef OUTPOST_TELEMETRY_SEND_PACER_H
#define OUTPOST_TELEMETRY_SEND_PACER_H

#include <chrono>
#include <cstdint>

namespace outpost::telemetry {

class SendPacer final {
  public:
    using Clock = std::chrono::steady_clock;

    // `per_second` 0 means unlimited. `burst` >= 1; the bucket starts full.
    SendPacer(uint32_t per_second, uint32_t burst, Clock::time_point now);

    // How long to wait from `now` before one more publish may go; zero
    // when it may go now. Takes nothing.
    std::chrono::microseconds wait_needed(Clock::time_point now);

    // Spends one token for a publish at `now` (call when wait_needed is 0).
    void take(Clock::time_point now);

  private:
    void refill(Clock::time_point now);

    const double per_second_;
    const double burst_;
    double tokens_;
    Clock::time_point last_;
};

}  // namespace outpost::telemetry

#endif  // OUTPOST_TELEMETRY_SEND_PACER_H
