// Capped exponential backoff with jitter, for reconnects and for rows the
// broker refused. Jitter spreads a fleet of gateways that lost the same
// broker at the same moment, so they do not all come back in lockstep.
#ifndef OUTPOST_PUBLISH_BACKOFF_H
#define OUTPOST_PUBLISH_BACKOFF_H

#include <cstdint>
#include <random>

namespace outpost::publish {

class Backoff final {
  public:
    // Delays grow from `initial_ms` by doubling up to `max_ms`. `seed` 0
    // picks a seed from the process id and the time.
    Backoff(int64_t initial_ms, int64_t max_ms, uint64_t seed);

    // The delay before try number `failures` + 1, after `failures` >= 1
    // consecutive failures: the capped exponential value d, drawn uniformly
    // from [d/2, d] ("equal jitter": never zero, never above the cap).
    int64_t delay_ms(int64_t failures);

  private:
    int64_t initial_ms_;
    int64_t max_ms_;
    std::mt19937_64 random_;
};

}  // namespace outpost::publish

#endif  // OUTPOST_PUBLISH_BACKOFF_H
