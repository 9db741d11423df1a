#include "bridge/mqtt/callback_time.h"

namespace outpost::bridge {

void CallbackTime::leave(SteadyTime now) {
    const std::int64_t started = started_ns_.exchange(kNone);
    if (started != kNone) total_ns_.fetch_add(ns(now) - started);
}

std::chrono::nanoseconds CallbackTime::total(SteadyTime now) const {
    // The running start first: a leave() between the two loads then counts
    // that callback twice, never not at all. Busy time overstated only makes
    // a retired session wait longer (the safe side); understated, it could
    // end a session whose messages were still coming.
    const std::int64_t started = started_ns_.load();
    const std::int64_t done = total_ns_.load();
    return std::chrono::nanoseconds(done + (started != kNone ? ns(now) - started : 0));
}

}  // namespace outpost::bridge
