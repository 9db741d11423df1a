// Invariant 7 of mqtt_session.cpp in code of its own: a retired session is
// drained once nothing arrived for a while, but "a while" counts only time
// in which paho's receive thread could have delivered to it. That thread is
// ONE per process for all its clients, and a message callback runs on it:
// while any session's callback holds a message (a live session waiting
// through a RocketMQ outage), no session of the process receives anything,
// and a retired session's queue could look empty when it is not.
//
// Times are passed in (steady clock), so the rule is testable without
// sleeping.
#ifndef OUTPOST_BRIDGE_MQTT_CALLBACK_TIME_H
#define OUTPOST_BRIDGE_MQTT_CALLBACK_TIME_H

#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>

namespace outpost::bridge {

using SteadyTime = std::chrono::steady_clock::time_point;

// The time the receive thread has spent inside message callbacks. enter()
// and leave() are called on that thread only; the other members from any
// thread.
class CallbackTime final {
  public:
    void enter(SteadyTime now) { started_ns_.store(ns(now)); }
    // After enter(); a leave() without one is ignored.
    void leave(SteadyTime now);
    // Whether a callback runs now (no CONNACK of the process is read until
    // it returns).
    bool held() const { return started_ns_.load() != kNone; }
    // Time spent in callbacks up to `now`, the running one included.
    std::chrono::nanoseconds total(SteadyTime now) const;

  private:
    static constexpr std::int64_t kNone = std::numeric_limits<std::int64_t>::min();
    static std::int64_t ns(SteadyTime time) {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch())
            .count();
    }
    std::atomic<std::int64_t> started_ns_{kNone};  // kNone: no callback running
    std::atomic<std::int64_t> total_ns_{0};        // of the callbacks that returned
};

// A retired session's quiet: the time since its last event (connect,
// UNSUBACK, a message settled) in which the receive thread was free, as
// `callbacks` (the process's CallbackTime) counts it.
class QuietClock final {
  public:
    // The session's last event happened at `now`.
    void restart(SteadyTime now, const CallbackTime& callbacks) {
        since_ = now;
        busy_at_start_ = callbacks.total(now);
    }
    // Whether at least `quiet` of free time passed since restart().
    bool quiet_for(std::chrono::nanoseconds quiet, SteadyTime now,
                   const CallbackTime& callbacks) const {
        return (now - since_) - (callbacks.total(now) - busy_at_start_) >= quiet;
    }

  private:
    SteadyTime since_{};
    std::chrono::nanoseconds busy_at_start_{0};
};

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_MQTT_CALLBACK_TIME_H
