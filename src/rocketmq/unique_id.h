// Client-side message ids (the UNIQ_KEY property), laid out as the Java client
// does so that `mqadmin queryMsgById` can read the time back out of them:
// 16 bytes as 32 upper-case hex digits =
//   4 bytes host tag | 2 bytes pid | 4 bytes random | 4 bytes ms since the
//   start of the current UTC month | 2 bytes counter.
#ifndef OUTPOST_ROCKETMQ_UNIQUE_ID_H
#define OUTPOST_ROCKETMQ_UNIQUE_ID_H

#include <array>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

namespace outpost::rocketmq {

class UniqueIdGenerator final {
  public:
    // Seeds the fixed part from the process id and a random device.
    UniqueIdGenerator();

    // Returns a new id; thread-safe. Two calls never return the same id within
    // 65,536 calls per millisecond.
    std::string next(std::chrono::system_clock::time_point now);

  private:
    std::array<unsigned char, 10> fixed_{};  // host tag, pid, random
    std::mutex mutex_;
    std::uint16_t counter_ = 0;  // guarded by mutex_
};

}  // namespace outpost::rocketmq

#endif  // OUTPOST_ROCKETMQ_UNIQUE_ID_H
