// Sequence numbers instead of iterators: a deque's iterators die on every
// push and pop, numbers do not, so the coalescing index stays valid.
#include "telemetry/ring.h"

#include <cassert>
#include <utility>

namespace outpost::telemetry {

TelemetryRing::TelemetryRing(size_t capacity, bool coalesce)
    : capacity_(capacity < 1 ? 1 : capacity), coalesce_(coalesce) {}

PushEffect TelemetryRing::push(TelemetryMessage&& message) {
    if (coalesce_) {
        auto waiting = waiting_.find(message.key);
        if (waiting != waiting_.end()) {
            line_[waiting->second - front_seq_].payload = std::move(message.payload);
            return PushEffect::kCoalesced;
        }
    }
    PushEffect effect = PushEffect::kQueued;
    if (line_.size() >= capacity_) {
        pop_front_entry();
        effect = PushEffect::kDroppedOldest;
    }
    if (coalesce_) waiting_.emplace(message.key, front_seq_ + line_.size());
    line_.push_back(std::move(message));
    assert(line_.size() <= capacity_);                      // invariant 1
    assert(!coalesce_ || waiting_.size() == line_.size());  // invariant 3
    return effect;
}

std::optional<TelemetryMessage> TelemetryRing::pop() {
    if (line_.empty()) return std::nullopt;
    std::optional<TelemetryMessage> oldest(std::move(line_.front()));
    if (coalesce_) waiting_.erase(oldest->key);
    line_.pop_front();
    ++front_seq_;
    return oldest;
}

size_t TelemetryRing::clear() {
    const size_t held = line_.size();
    front_seq_ += held;
    line_.clear();
    waiting_.clear();
    return held;
}

void TelemetryRing::pop_front_entry() {
    if (coalesce_) waiting_.erase(line_.front().key);
    line_.pop_front();
    ++front_seq_;
}

}  // namespace outpost::telemetry
