#include "rocketmq/unique_id.h"

#include <unistd.h>

#include <ctime>
#include <random>

namespace outpost::rocketmq {
namespace {

void put_be(unsigned char* out, std::uint64_t value, int bytes) {
    for (int i = bytes - 1; i >= 0; --i) {
        out[i] = static_cast<unsigned char>(value & 0xFFu);
        value >>= 8;
    }
}

// Milliseconds since 00:00 UTC on the first day of `now`'s month.
std::uint64_t ms_since_month_start(std::chrono::system_clock::time_point now) {
    const auto since_epoch =
        std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
    std::time_t seconds = static_cast<std::time_t>(since_epoch / 1000);
    std::tm utc{};
    gmtime_r(&seconds, &utc);
    const std::int64_t into_month = ((static_cast<std::int64_t>(utc.tm_mday) - 1) * 86400 +
                                     utc.tm_hour * 3600 + utc.tm_min * 60 + utc.tm_sec) *
                                        1000 +
                                    since_epoch % 1000;
    return static_cast<std::uint64_t>(into_month < 0 ? 0 : into_month);
}

}  // namespace

UniqueIdGenerator::UniqueIdGenerator() {
    std::random_device random;
    // Java falls back to a fake address too when it has none; ours is random.
    put_be(fixed_.data(), random(), 4);
    put_be(fixed_.data() + 4, static_cast<std::uint64_t>(getpid()), 2);
    put_be(fixed_.data() + 6, random(), 4);
}

std::string UniqueIdGenerator::next(std::chrono::system_clock::time_point now) {
    std::array<unsigned char, 16> id{};
    std::uint16_t counter;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        counter = counter_++;
    }
    for (std::size_t i = 0; i < fixed_.size(); ++i) {
        id[i] = fixed_[i];
    }
    put_be(id.data() + 10, ms_since_month_start(now), 4);
    put_be(id.data() + 14, counter, 2);
    static const char kHex[] = "0123456789ABCDEF";
    std::string text;
    text.reserve(32);
    for (unsigned char byte : id) {
        text.push_back(kHex[byte >> 4]);
        text.push_back(kHex[byte & 0x0F]);
    }
    return text;
}

}  // namespace outpost::rocketmq
