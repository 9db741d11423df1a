#include "publish/window.h"

#include <algorithm>
#include <cassert>
#include <limits>

namespace outpost::publish {

uint64_t Window::start(store::OutboxRow row, int64_t now_ms) {
    assert(!full() && !busy(row.id));  // W1, W2
    const uint64_t tag = next_tag_++;
    busy_.insert(row.id);
    Flight flight;
    flight.row = std::move(row);
    flight.published_boot_ms = now_ms;
    flights_.emplace(tag, std::move(flight));
    return tag;
}

store::OutboxRow Window::cancel(uint64_t tag) {
    auto it = flights_.find(tag);
    assert(it != flights_.end());
    store::OutboxRow row = std::move(it->second.row);
    flights_.erase(it);
    busy_.erase(row.id);
    return row;
}

std::optional<Flight> Window::land(uint64_t tag) {
    auto it = flights_.find(tag);
    if (it == flights_.end()) return std::nullopt;
    Flight flight = std::move(it->second);
    flights_.erase(it);
    return flight;
}

void Window::acknowledged(int64_t id) {
    busy_.insert(id);
}

void Window::retry(store::OutboxRow row, int64_t due_ms) {
    const int64_t id = row.id;
    auto block = blocked_.find(row.device_id);
    if (block == blocked_.end()) {
        blocked_.emplace(row.device_id, Block{id});
    } else {
        block->second.first_id = std::min(block->second.first_id, id);
    }
    busy_.insert(id);
    retrying_[id] = Retry{std::move(row), due_ms};
}

std::vector<store::OutboxRow> Window::take_due(int64_t now_ms, int64_t* unblocked_from) {
    *unblocked_from = 0;
    std::vector<store::OutboxRow> due;
    // A device is due when its lowest retrying row is: that row goes first.
    std::unordered_map<std::string, bool> device_due;
    for (const auto& [id, retry] : retrying_) {
        device_due.emplace(retry.row.device_id, retry.due_ms <= now_ms);
    }
    int room = capacity_ - static_cast<int>(flights_.size());
    for (auto it = retrying_.begin(); it != retrying_.end() && room > 0;) {
        const std::string device = it->second.row.device_id;
        if (!device_due[device]) {
            ++it;
            continue;
        }
        busy_.erase(it->first);  // start() marks it busy again
        due.push_back(std::move(it->second.row));
        it = retrying_.erase(it);
        --room;
    }
    for (const auto& row : due) {
        bool still_retrying = std::any_of(
            retrying_.begin(), retrying_.end(),
            [&](const auto& entry) { return entry.second.row.device_id == row.device_id; });
        auto block = blocked_.find(row.device_id);
        if (!still_retrying && block != blocked_.end()) {
            const int64_t from = block->second.first_id;
            *unblocked_from = *unblocked_from == 0 ? from : std::min(*unblocked_from, from);
            blocked_.erase(block);
        }
    }
    return due;
}

std::optional<int64_t> Window::next_due() const {
    if (retrying_.empty()) return std::nullopt;
    int64_t earliest = std::numeric_limits<int64_t>::max();
    for (const auto& [id, retry] : retrying_) earliest = std::min(earliest, retry.due_ms);
    return earliest;
}

int64_t Window::abandon_flights() {
    int64_t lowest = 0;
    for (const auto& [tag, flight] : flights_) {
        busy_.erase(flight.row.id);
        lowest = lowest == 0 ? flight.row.id : std::min(lowest, flight.row.id);
    }
    flights_.clear();
    return lowest;
}

void Window::clear() {
    flights_.clear();
    busy_.clear();
    retrying_.clear();
    blocked_.clear();
}

void Window::check_invariants() const {
#ifndef NDEBUG
    size_t accounted = retrying_.size();
    for (const auto& [tag, flight] : flights_) {
        assert(busy_.count(flight.row.id) == 1);
        assert(retrying_.count(flight.row.id) == 0);
        ++accounted;
    }
    assert(busy_.size() >= accounted);  // the rest await their SENT mark
    for (const auto& [id, retry] : retrying_) {
        assert(busy_.count(id) == 1);
        assert(blocked_.count(retry.row.device_id) == 1);  // W3
    }
#endif
}

}  // namespace outpost::publish
