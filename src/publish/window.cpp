#include "publish/window.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <limits>

namespace outpost::publish {

uint64_t Window::start(store::OutboxRow row, int64_t published_boot_us, bool retry) {
    assert(!full() && !busy(row.id));  // W1, W2
    const uint64_t tag = next_tag_++;
    busy_.insert(row.id);
    if (retry) {
        Block& block = blocked_.at(row.device_id);
        assert(!block.retry_in_flight);  // W3
        block.retry_in_flight = true;
    }
    flights_.emplace(tag, Flight{std::move(row), published_boot_us, retry});
    return tag;
}

Flight Window::cancel(uint64_t tag) {
    auto it = flights_.find(tag);
    assert(it != flights_.end());
    Flight flight = std::move(it->second);
    flights_.erase(it);
    busy_.erase(flight.row.id);
    if (flight.retry) blocked_.at(flight.row.device_id).retry_in_flight = false;
    return flight;
}

std::optional<Flight> Window::land(uint64_t tag) {
    auto it = flights_.find(tag);
    if (it == flights_.end()) return std::nullopt;
    Flight flight = std::move(it->second);
    flights_.erase(it);
    return flight;
}

int64_t Window::acknowledged(const Flight& flight) {
    return flight.retry ? retry_settled(flight.row.device_id) : 0;
}

int64_t Window::released(const Flight& flight) {
    busy_.erase(flight.row.id);
    return flight.retry ? retry_settled(flight.row.device_id) : 0;
}

void Window::retry(const Flight& flight, int64_t due_ms) {
    auto block = blocked_.find(flight.row.device_id);
    if (flight.retry && block != blocked_.end()) block->second.retry_in_flight = false;
    hold(flight.row, due_ms);
}

void Window::retry(store::OutboxRow row, int64_t due_ms) {
    hold(std::move(row), due_ms);
}

void Window::hold(store::OutboxRow row, int64_t due_ms) {
    auto block = blocked_.find(row.device_id);
    if (block == blocked_.end()) {
        blocked_.emplace(row.device_id, Block{row.id, false});
    } else {
        block->second.first_id = std::min(block->second.first_id, row.id);
    }
    busy_.insert(row.id);
    const int64_t id = row.id;
    retrying_[id] = Retry{std::move(row), due_ms};
}

bool Window::has_retrying(const std::string& device_id) const {
    return std::any_of(retrying_.begin(), retrying_.end(),
                       [&](const auto& entry) { return entry.second.row.device_id == device_id; });
}

int64_t Window::retry_settled(const std::string& device_id) {
    auto block = blocked_.find(device_id);
    assert(block != blocked_.end());
    block->second.retry_in_flight = false;
    if (has_retrying(device_id)) return 0;
    const int64_t from = block->second.first_id;
    blocked_.erase(block);
    return from;
}

std::vector<store::OutboxRow> Window::take_due(int64_t now_ms) {
    std::vector<store::OutboxRow> due;
    std::unordered_set<std::string> considered;
    for (auto it = retrying_.begin(); it != retrying_.end() && !full();) {
        const std::string& device = it->second.row.device_id;
        // Only the lowest retrying row of a device, and only one in flight.
        const bool first_of_device = considered.insert(device).second;
        if (!first_of_device || blocked_.at(device).retry_in_flight || it->second.due_ms > now_ms ||
            static_cast<int>(flights_.size() + due.size()) >= capacity_) {
            ++it;
            continue;
        }
        busy_.erase(it->first);  // start() marks it busy again
        due.push_back(std::move(it->second.row));
        it = retrying_.erase(it);
    }
    return due;
}

std::optional<int64_t> Window::next_due() const {
    std::optional<int64_t> earliest;
    std::unordered_set<std::string> considered;
    for (const auto& [id, retry] : retrying_) {
        const std::string& device = retry.row.device_id;
        if (!considered.insert(device).second || blocked_.at(device).retry_in_flight) continue;
        earliest = std::min(earliest.value_or(std::numeric_limits<int64_t>::max()), retry.due_ms);
    }
    return earliest;
}

int64_t Window::abandon_flights(int64_t now_ms) {
    int64_t lowest = 0;
    std::vector<Flight> retries;
    for (auto& [tag, flight] : flights_) {
        busy_.erase(flight.row.id);
        if (flight.retry) {
            retries.push_back(std::move(flight));
        } else {
            lowest = lowest == 0 ? flight.row.id : std::min(lowest, flight.row.id);
        }
    }
    flights_.clear();
    for (Flight& flight : retries) {
        blocked_.at(flight.row.device_id).retry_in_flight = false;
        hold(std::move(flight.row), now_ms);
    }
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
    const std::string broken = broken_invariant();
    if (!broken.empty()) std::fprintf(stderr, "publish window: %s\n", broken.c_str());
    assert(broken.empty());
#endif
}

std::string Window::broken_invariant() const {
    // Called after every outcome in debug builds: text only for what broke.
    auto row_name = [](int64_t id) { return "row " + std::to_string(id); };
    std::unordered_map<std::string, int> retries_in_flight;
    for (const auto& [tag, flight] : flights_) {
        if (busy_.count(flight.row.id) != 1) {
            return "W1: " + row_name(flight.row.id) + " is in flight but not busy";
        }
        if (retrying_.count(flight.row.id) != 0) {
            return "W1: " + row_name(flight.row.id) + " is in flight and retrying at once";
        }
        if (!flight.retry) continue;
        auto block = blocked_.find(flight.row.device_id);
        if (block == blocked_.end() || !block->second.retry_in_flight) {
            return "W3: " + row_name(flight.row.id) +
                   " is a retry in flight of an unblocked device " + flight.row.device_id;
        }
        if (++retries_in_flight[flight.row.device_id] > 1) {
            return "W3: device " + flight.row.device_id + " has two retries in flight";
        }
    }
    if (busy_.size() < flights_.size() + retrying_.size()) {  // the rest await marks
        return "W1: fewer busy rows than rows in flight and retrying";
    }
    for (const auto& [id, retry] : retrying_) {
        if (busy_.count(id) != 1) return "W1: " + row_name(id) + " is retrying but not busy";
        if (blocked_.count(retry.row.device_id) != 1) {
            return "W3: " + row_name(id) + " is retrying but device " + retry.row.device_id +
                   " is not blocked";
        }
    }
    for (const auto& [device, block] : blocked_) {
        if (block.retry_in_flight && retries_in_flight[device] != 1) {
            return "W3: device " + device + " is marked with a retry in flight it does not have";
        }
    }
    return std::string();
}

}  // namespace outpost::publish
