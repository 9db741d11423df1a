// The events this bridge instance forwarded most recently, each known by its
// gateway and eventId, so that a redelivery or a gateway's resend is
// acknowledged without a second RocketMQ message. Keyed on the pair: a
// gateway that publishes another gateway's eventId (the ACL binds a gateway
// to its topic level, not to the ids it chooses) cannot get that gateway's
// alarm suppressed. Bounded: the least recently seen event is forgotten
// first.
// Best effort by design: another instance, or this one after a restart,
// does not know these ids, so RocketMQ consumers still dedupe on KEYS.
#ifndef OUTPOST_BRIDGE_RECENT_EVENT_IDS_H
#define OUTPOST_BRIDGE_RECENT_EVENT_IDS_H

#include <cstddef>
#include <list>
#include <string>
#include <unordered_map>

namespace outpost::bridge {

// Not thread-safe: used from the MQTT callback thread only.
class RecentEventIds final {
  public:
    // Remembers at most `capacity` ids; 0 remembers none.
    explicit RecentEventIds(std::size_t capacity) : capacity_(capacity) {}

    // True when `event_id` of `gateway_id` is remembered; it becomes the
    // most recent.
    bool contains(const std::string& gateway_id, const std::string& event_id);

    // Remembers `event_id` of `gateway_id` as the most recent, forgetting
    // the least recent event when full.
    void insert(const std::string& gateway_id, const std::string& event_id);

    std::size_t size() const { return index_.size(); }

  private:
    bool contains_key(const std::string& key);

    const std::size_t capacity_;
    std::list<std::string> order_;  // most recent first
    std::unordered_map<std::string, std::list<std::string>::iterator> index_;
};

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_RECENT_EVENT_IDS_H
