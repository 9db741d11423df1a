#include "common/random_source.h"

#include <time.h>
#include <unistd.h>

#include <random>

namespace outpost {
namespace {

uint64_t pick_seed(uint64_t seed) {
    if (seed != 0) return seed;
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (static_cast<uint64_t>(::getpid()) << 32) ^ static_cast<uint64_t>(now.tv_nsec) ^
           static_cast<uint64_t>(now.tv_sec);
}

class MersenneSource final : public RandomSource {
  public:
    explicit MersenneSource(uint64_t seed) : engine_(seed) {}

    int64_t uniform(int64_t low, int64_t high) override {
        return std::uniform_int_distribution<int64_t>(low, high)(engine_);
    }

  private:
    std::mt19937_64 engine_;
};

}  // namespace

std::unique_ptr<RandomSource> seeded_random(uint64_t seed) {
    return std::make_unique<MersenneSource>(pick_seed(seed));
}

}  // namespace outpost
