#include "bridge/mqtt/v5/acknowledgement_order.h"

#include <cassert>
#include <string>

namespace outpost::bridge::mqtt5 {

bool AcknowledgementOrder::arrived(uint16_t packet_id) {
    if (state_[packet_id] != kFree) return false;
    state_[packet_id] = kHeld;
    arrival_.push_back(packet_id);
#ifndef NDEBUG
    check_invariants();
#endif
    return true;
}

Status AcknowledgementOrder::acknowledge(uint16_t packet_id, std::vector<uint16_t>* ready) {
    if (state_[packet_id] != kHeld) {
        return Status::error(StatusCode::kInvalidArgument,
                             "packet identifier " + std::to_string(packet_id) +
                                 (state_[packet_id] == kFree ? " is not held on this connection"
                                                             : " was acknowledged already"));
    }
    state_[packet_id] = kAcknowledged;
    ++acknowledged_count_;
    while (!arrival_.empty() && state_[arrival_.front()] == kAcknowledged) {  // I2
        ready->push_back(arrival_.front());
        state_[arrival_.front()] = kFree;
        arrival_.pop_front();
        --acknowledged_count_;
    }
#ifndef NDEBUG
    check_invariants();
#endif
    return Status::ok();
}

void AcknowledgementOrder::check_invariants() const {
    assert(arrival_.empty() || state_[arrival_.front()] == kHeld);  // I2
    std::size_t acknowledged = 0;
    for (uint16_t id : arrival_) {
        assert(state_[id] != kFree);  // I1
        if (state_[id] == kAcknowledged) ++acknowledged;
    }
    assert(acknowledged == acknowledged_count_);  // I3
    static_cast<void>(acknowledged);
}

}  // namespace outpost::bridge::mqtt5
