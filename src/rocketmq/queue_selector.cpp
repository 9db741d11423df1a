#include "rocketmq/queue_selector.h"

namespace outpost::rocketmq {

std::uint64_t stable_hash(std::string_view key) {
    constexpr std::uint64_t kOffsetBasis = 14695981039346656037ull;
    constexpr std::uint64_t kPrime = 1099511628211ull;
    std::uint64_t hash = kOffsetBasis;
    for (char c : key) {
        hash ^= static_cast<unsigned char>(c);
        hash *= kPrime;
    }
    return hash;
}

std::size_t select_queue_index(std::string_view sharding_key, std::size_t queue_count) {
    return static_cast<std::size_t>(stable_hash(sharding_key) % queue_count);
}

}  // namespace outpost::rocketmq
