// Where jitter gets its randomness, behind an interface so that a test can
// pin every draw (the lowest, the highest, a fixed sequence) and check exact
// delays instead of statistics.
#ifndef OUTPOST_COMMON_RANDOM_SOURCE_H
#define OUTPOST_COMMON_RANDOM_SOURCE_H

#include <cstdint>
#include <memory>

namespace outpost {

class RandomSource {
  public:
    virtual ~RandomSource() = default;

    // A number drawn uniformly from [low, high], both included.
    // Precondition: low <= high.
    virtual int64_t uniform(int64_t low, int64_t high) = 0;
};

// A 64-bit Mersenne Twister seeded with `seed`. Seed 0 picks one from the
// process id and the monotonic clock, so that gateways (or bridge instances)
// started at the same moment still draw differently. Not thread-safe: one
// owner thread.
std::unique_ptr<RandomSource> seeded_random(uint64_t seed);

}  // namespace outpost

#endif  // OUTPOST_COMMON_RANDOM_SOURCE_H
