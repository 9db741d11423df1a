#include "bridge/recent_event_ids.h"

namespace outpost::bridge {

bool RecentEventIds::contains(const std::string& event_id) {
    auto it = index_.find(event_id);
    if (it == index_.end()) return false;
    order_.splice(order_.begin(), order_, it->second);
    return true;
}

void RecentEventIds::insert(const std::string& event_id) {
    if (capacity_ == 0 || contains(event_id)) return;
    if (index_.size() == capacity_) {
        index_.erase(order_.back());
        order_.pop_back();
    }
    order_.push_front(event_id);
    index_.emplace(event_id, order_.begin());
}

}  // namespace outpost::bridge
