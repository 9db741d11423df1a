#include "bridge/recent_event_ids.h"

namespace outpost::bridge {
namespace {

// Gateway ids never hold '/' (they match [A-Za-z0-9._-]), so the pair
// reads back one way only.
std::string key_of(const std::string& gateway_id, const std::string& event_id) {
    return gateway_id + "/" + event_id;
}

}  // namespace

bool RecentEventIds::contains(const std::string& gateway_id, const std::string& event_id) {
    return contains_key(key_of(gateway_id, event_id));
}

bool RecentEventIds::contains_key(const std::string& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return false;
    order_.splice(order_.begin(), order_, it->second);
    return true;
}

void RecentEventIds::insert(const std::string& gateway_id, const std::string& event_id) {
    std::string key = key_of(gateway_id, event_id);
    if (capacity_ == 0 || contains_key(key)) return;
    if (index_.size() == capacity_) {
        index_.erase(order_.back());
        order_.pop_back();
    }
    order_.push_front(std::move(key));
    index_.emplace(order_.front(), order_.begin());
}

}  // namespace outpost::bridge
