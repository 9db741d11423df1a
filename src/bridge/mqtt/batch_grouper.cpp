#include "bridge/mqtt/batch_grouper.h"

#include <algorithm>

namespace outpost::bridge {
namespace {

// The producer's encoding adds a header per message (message_batch.h: 22
// bytes) and properties of its own (UNIQ_KEY, WAIT, ...).
constexpr std::size_t kPerMessageOverhead = 160;

}  // namespace

std::size_t batch_bytes(const SinkMessage& message) {
    std::size_t bytes = kPerMessageOverhead + message.body.size() + message.tags.size() +
                        message.keys.size();
    for (const auto& [name, value] : message.properties) bytes += name.size() + value.size() + 2;
    return bytes;
}

BatchGrouper::BatchGrouper(std::size_t max_messages, std::size_t max_bytes,
                           std::chrono::milliseconds linger)
    : max_messages_(std::max<std::size_t>(1, max_messages)),
      max_bytes_(max_bytes),
      linger_(linger) {}

BatchGrouper::Key BatchGrouper::key_for(const ReadyMessage& ready) const {
    const auto held = device_batch_.find({ready.out.topic, ready.out.sharding_key});
    if (held != device_batch_.end()) return held->second;
    return Key{ready.out.topic, ready.queue, ready.queue.empty() ? ready.out.sharding_key : ""};
}

void BatchGrouper::close(std::map<Key, Batch>::iterator open) {
    forget_devices(open->second);
    closed_.push_back(std::move(open->second));
    open_.erase(open);
}

void BatchGrouper::forget_devices(const Batch& batch) {
    for (const ReadyMessage& message : batch.messages) {
        device_batch_.erase({message.out.topic, message.out.sharding_key});
    }
}

void BatchGrouper::add(std::uint16_t packet_id, ReadyMessage ready, TimePoint now) {
    const std::size_t bytes = batch_bytes(ready.out);
    Key key = key_for(ready);
    auto open = open_.find(key);
    // Invariant 2: a message that would overfill the open batch closes it.
    // Keyed again after that: a closed batch no longer holds the device to
    // its group, so it may join its queue's (at most two rounds).
    while (open != open_.end() && open->second.bytes + bytes > max_bytes_) {
        close(open);
        key = key_for(ready);
        open = open_.find(key);
    }
    if (open == open_.end()) {
        open = open_.emplace(std::move(key), Batch{}).first;
        open->second.oldest = now;
    }
    Batch& batch = open->second;
    device_batch_[{ready.out.topic, ready.out.sharding_key}] = open->first;
    event_ids_.insert({ready.gateway_id, ready.event_id});
    batch.packet_ids.push_back(packet_id);
    batch.messages.push_back(std::move(ready));
    batch.bytes += bytes;
    ++held_;
    if (batch.messages.size() >= max_messages_) close(open);
}

std::optional<Batch> BatchGrouper::take_due(TimePoint now) {
    std::optional<Batch> due;
    if (!closed_.empty()) {
        due = std::move(closed_.front());
        closed_.pop_front();
    } else {
        // Invariant 3: the open batch that has waited longest, once it waited linger.
        auto oldest = open_.end();
        for (auto it = open_.begin(); it != open_.end(); ++it) {
            if (oldest == open_.end() || it->second.oldest < oldest->second.oldest) oldest = it;
        }
        if (oldest == open_.end() || oldest->second.oldest + linger_ > now) return std::nullopt;
        forget_devices(oldest->second);
        due = std::move(oldest->second);
        open_.erase(oldest);
    }
    held_ -= due->messages.size();
    for (const ReadyMessage& message : due->messages) {
        event_ids_.erase(event_ids_.find({message.gateway_id, message.event_id}));
    }
    return due;
}

std::optional<BatchGrouper::TimePoint> BatchGrouper::next_due() const {
    if (!closed_.empty()) return closed_.front().oldest;
    std::optional<TimePoint> due;
    for (const auto& [key, batch] : open_) {
        if (!due || batch.oldest + linger_ < *due) due = batch.oldest + linger_;
    }
    return due;
}

void BatchGrouper::clear() {
    open_.clear();
    device_batch_.clear();
    closed_.clear();
    event_ids_.clear();
    held_ = 0;
}

}  // namespace outpost::bridge
