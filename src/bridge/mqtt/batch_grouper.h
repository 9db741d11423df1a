// Which held messages go to RocketMQ together, and when: the batched
// session's grouping (batched_session.h), apart from sockets and clocks so
// it can be tested alone.
//
// Messages are grouped by (RocketMQ topic, destination queue): the queue
// their device (sharding key) picked when they were prepared
// (ReadyMessage::queue), so the devices of one queue share a batch, which
// goes as one request while the route stands. A message whose queue is
// unknown ("": no route known yet) is grouped by its device instead. The
// send picks queues again by the route it uses, one request per queue
// (MessageSink::send_batch), so a batch whose devices a route change moved
// apart goes as several requests. Invariants:
//  1. A device's messages are handed out in arrival order, in a batch and
//     across batches. A device has messages in at most one open batch, and
//     its next message joins that batch, whatever queue it names (a route
//     change does not split a device's held messages); a batch that closed
//     earlier is handed out before any batch opened after it closed.
//  2. A batch holds at most max_messages messages and, when it holds more
//     than one, at most max_bytes (batch_bytes() of each); a message alone
//     may exceed it.
//  3. A batch is due when it is full (closed: the next message would break
//     2) or when its oldest message has waited `linger`. Closed batches go
//     first, in the order they closed; then the open one that waited
//     longest.
//  4. A batch holds messages of one RocketMQ topic.
#ifndef OUTPOST_BRIDGE_MQTT_BATCH_GROUPER_H
#define OUTPOST_BRIDGE_MQTT_BATCH_GROUPER_H

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "bridge/delivery.h"

namespace outpost::bridge {

// What a message costs of batch.max_bytes: its body, tags, keys and
// properties, plus room for what the producer adds per message.
std::size_t batch_bytes(const SinkMessage& message);

// Messages of one group to send together, in arrival order, each with
// the MQTT packet identifier that acknowledges it.
struct Batch {
    std::vector<std::uint16_t> packet_ids;
    std::vector<ReadyMessage> messages;
    std::size_t bytes = 0;
    std::chrono::steady_clock::time_point oldest;  // when its first message arrived
};

// One thread (the batched session's).
class BatchGrouper final {
  public:
    using TimePoint = std::chrono::steady_clock::time_point;

    BatchGrouper(std::size_t max_messages, std::size_t max_bytes, std::chrono::milliseconds linger);

    // Holds `ready` (acknowledged by `packet_id`), which arrived at `now`.
    void add(std::uint16_t packet_id, ReadyMessage ready, TimePoint now);

    // The next batch due at `now` (invariant 3), taken out; nullopt when none is.
    std::optional<Batch> take_due(TimePoint now);

    // When the next batch falls due if nothing else arrives: now for a
    // closed one, else the oldest open batch's arrival + linger. nullopt
    // when nothing is held.
    std::optional<TimePoint> next_due() const;

    std::size_t held() const { return held_; }  // messages in all batches
    bool has_full() const { return !closed_.empty(); }  // a batch closed, full

    // Whether a message with this gateway's `event_id` is held.
    bool holds(const std::string& gateway_id, const std::string& event_id) const {
        return event_ids_.count({gateway_id, event_id}) > 0;
    }

    // Drops every message (their connection ended: the broker sends them again).
    void clear();

  private:
    // (RocketMQ topic, queue, device): the device only when the queue is "".
    using Key = std::tuple<std::string, std::string, std::string>;
    using Device = std::pair<std::string, std::string>;  // (RocketMQ topic, sharding key)

    // The group `ready` joins (invariant 1).
    Key key_for(const ReadyMessage& ready) const;
    // Moves the open batch at `open` to the closed ones.
    void close(std::map<Key, Batch>::iterator open);
    // Forgets which open batch holds the devices of `batch`, which left open_.
    void forget_devices(const Batch& batch);

    const std::size_t max_messages_;
    const std::size_t max_bytes_;
    const std::chrono::milliseconds linger_;
    std::map<Key, Batch> open_;  // at most one open batch per group
    std::map<Device, Key> device_batch_;  // the open batch holding each device's messages
    std::deque<Batch> closed_;   // full, in the order they closed
    std::size_t held_ = 0;
    std::multiset<std::pair<std::string, std::string>> event_ids_;  // (gateway, eventId) held
};

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_MQTT_BATCH_GROUPER_H
