// A tiny seeded generator for the power-cut simulator.
//
// SplitMix64 is used instead of <random> so that one seed gives the same cut
// on every standard library and every architecture: a failing seed printed by
// CI on x86 must reproduce on an ARM gateway image.
#ifndef OUTPOST_PROOF_CUT_RANDOM_H
#define OUTPOST_PROOF_CUT_RANDOM_H

#include <cstdint>

namespace outpost::testing {

class CutRandom final {
  public:
    explicit CutRandom(std::uint64_t seed) : state_(seed) {}

    // Next 64 uniformly distributed bits.
    std::uint64_t next() {
        std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
        return z ^ (z >> 31);
    }

    // A value in [0, bound). `bound` must be at least 1. The modulo bias is
    // irrelevant for the small bounds used here.
    std::uint32_t below(std::uint32_t bound) { return static_cast<std::uint32_t>(next() % bound); }

  private:
    std::uint64_t state_;
};

}  // namespace outpost::testing

#endif  // OUTPOST_PROOF_CUT_RANDOM_H
