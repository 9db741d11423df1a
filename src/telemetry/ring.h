// The telemetry ring: a bounded line of messages waiting for the sender,
// oldest first. Not thread-safe: the lane guards it with one mutex.
//
// Invariants:
//  1. size() <= capacity at every return.
//  2. push() on a full ring removes the oldest message first (drop-oldest).
//  3. With coalescing, at most one message per key waits; a push of a
//     waiting key replaces that message's payload where it stands.
//  4. pop() returns messages in the order their keys first entered the
//     line (the order of push() when not coalescing).
#ifndef OUTPOST_TELEMETRY_RING_H
#define OUTPOST_TELEMETRY_RING_H

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <unordered_map>

namespace outpost::telemetry {

struct TelemetryMessage {
    std::string key;
    std::string payload;
};

// What one push() did besides queueing.
enum class PushEffect {
    kQueued,         // appended at the back
    kCoalesced,      // replaced the waiting message of the same key
    kDroppedOldest,  // appended after the oldest message was dropped
};

class TelemetryRing final {
  public:
    // `capacity` >= 1.
    TelemetryRing(size_t capacity, bool coalesce);

    // Takes `message` (moved from). See PushEffect.
    PushEffect push(TelemetryMessage&& message);

    // The oldest waiting message, or nothing when empty.
    std::optional<TelemetryMessage> pop();

    // Empties the ring; returns how many messages it held.
    size_t clear();

    size_t size() const { return line_.size(); }
    size_t capacity() const { return capacity_; }

  private:
    void pop_front_entry();

    const size_t capacity_;
    const bool coalesce_;
    std::deque<TelemetryMessage> line_;
    // Sequence number of line_.front(); entry i has number front_seq_ + i.
    uint64_t front_seq_ = 0;
    // Coalescing only: key -> sequence number of its waiting message.
    std::unordered_map<std::string, uint64_t> waiting_;
};

}  // namespace outpost::telemetry

#endif  // OUTPOST_TELEMETRY_RING_H
