// The QoS 1 messages a subscriber holds, and the order their PUBACKs go out.
//
// MQTT v5 (4.6) requires a client to send PUBACKs in the order the PUBLISH
// packets arrived. The application may acknowledge in any order (a batch
// whose sends complete out of order); this class holds back a PUBACK until
// every earlier one is acknowledged too.
//
// Invariants (check_invariants() asserts them in debug builds):
//  I1. arrival_ lists the held packet identifiers in arrival order, each
//      once; state_[id] is kHeld or kAcknowledged exactly for those.
//  I2. arrival_'s front is never kAcknowledged: an acknowledged front is
//      released at once, so a held PUBACK always waits for an earlier one.
//  I3. acknowledged_count_ counts the kAcknowledged entries.
#ifndef OUTPOST_BRIDGE_MQTT_V5_ACKNOWLEDGEMENT_ORDER_H
#define OUTPOST_BRIDGE_MQTT_V5_ACKNOWLEDGEMENT_ORDER_H

#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

#include "outpost/status.h"

namespace outpost::bridge::mqtt5 {

class AcknowledgementOrder final {
  public:
    AcknowledgementOrder() : state_(65536, kFree) {}

    // A QoS 1 PUBLISH with `packet_id` arrived. False when that identifier is
    // still held (the broker reused it before its PUBACK: a protocol error).
    bool arrived(uint16_t packet_id);

    // The application is done with `packet_id`. Appends to *ready the
    // identifiers whose PUBACK may go out now, in arrival order (none while
    // an earlier message is still unacknowledged). Fails with
    // kInvalidArgument, changing nothing, when `packet_id` is not held or was
    // acknowledged already.
    Status acknowledge(uint16_t packet_id, std::vector<uint16_t>* ready);

    // Messages whose PUBACK has not gone out (acknowledged or not): what the
    // broker counts against the Receive Maximum.
    std::size_t held() const { return arrival_.size(); }
    // Held messages the application has acknowledged, waiting for an earlier one.
    std::size_t waiting() const { return acknowledged_count_; }

    void check_invariants() const;

  private:
    enum State : uint8_t { kFree, kHeld, kAcknowledged };
    std::vector<uint8_t> state_;    // by packet identifier
    std::deque<uint16_t> arrival_;  // held identifiers, oldest first
    std::size_t acknowledged_count_ = 0;
};

}  // namespace outpost::bridge::mqtt5

#endif  // OUTPOST_BRIDGE_MQTT_V5_ACKNOWLEDGEMENT_ORDER_H
