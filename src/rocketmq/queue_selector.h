// Which write queue a message goes to. Messages with the same sharding key
// (one device) always land on the same queue while the route keeps the same
// queues, so the broker keeps them in send order.
#ifndef OUTPOST_ROCKETMQ_QUEUE_SELECTOR_H
#define OUTPOST_ROCKETMQ_QUEUE_SELECTOR_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace outpost::rocketmq {

// One write queue of a topic on one broker.
struct MessageQueue {
    std::string broker_name;
    std::int32_t queue_id = 0;

    bool operator==(const MessageQueue& other) const {
        return broker_name == other.broker_name && queue_id == other.queue_id;
    }
};

// 64-bit FNV-1a of `key`: the same on every platform, build and process run
// (std::hash promises none of that).
std::uint64_t stable_hash(std::string_view key);

// Index in [0, queue_count) for `sharding_key`. Precondition: queue_count > 0.
std::size_t select_queue_index(std::string_view sharding_key, std::size_t queue_count);

}  // namespace outpost::rocketmq

#endif  // OUTPOST_ROCKETMQ_QUEUE_SELECTOR_H
