#include "ledger.h"

#include <algorithm>
#include <map>

namespace outpost::fleet {

Ledger::Ledger(int gateways) {
    for (int i = 0; i < gateways; ++i) gateways_.push_back(std::make_unique<Gateway>());
}

void Ledger::raised(int gateway, const std::string& event_id, Steady::time_point at) {
    Gateway& g = *gateways_.at(gateway);
    std::lock_guard<std::mutex> lock(g.mutex);
    if (g.open.emplace(event_id, Open{at, false}).second) ++raised_;
}

void Ledger::acked(int gateway, const std::string& event_id) {
    Gateway& g = *gateways_.at(gateway);
    std::lock_guard<std::mutex> lock(g.mutex);
    auto found = g.open.find(event_id);
    if (found == g.open.end() || found->second.acked) return;
    found->second.acked = true;
    ++acked_;
}

bool Ledger::receipted(int gateway, const std::string& event_id) {
    if (gateway < 0 || gateway >= static_cast<int>(gateways_.size())) return false;
    Gateway& g = *gateways_[gateway];
    std::lock_guard<std::mutex> lock(g.mutex);
    auto found = g.open.find(event_id);
    if (found == g.open.end()) return false;
    // A receipt implies the broker took it, even if its PUBACK was lost
    // with the connection.
    if (!found->second.acked) ++acked_;
    g.open.erase(found);
    ++receipted_;
    return true;
}

void Ledger::connected(Steady::time_point at) {
    std::lock_guard<std::mutex> lock(connects_mutex_);
    connects_.push_back(at);
}

void Ledger::republished(bool after_receipt_timeout) {
    ++(after_receipt_timeout ? republished_unreceipted_ : republished_unacked_);
}

Ledger::Totals Ledger::totals() const {
    Totals totals;
    totals.raised = raised_;
    totals.acked = acked_;
    totals.receipted = receipted_;
    totals.publishes = publishes_;
    totals.republished_unacked = republished_unacked_;
    totals.republished_unreceipted = republished_unreceipted_;
    std::lock_guard<std::mutex> lock(connects_mutex_);
    totals.connects = connects_.size();
    return totals;
}

std::size_t Ledger::open_raised_before(Steady::time_point before) const {
    std::size_t count = 0;
    for (const auto& g : gateways_) {
        std::lock_guard<std::mutex> lock(g->mutex);
        for (const auto& [id, open] : g->open) count += open.raised < before ? 1 : 0;
    }
    return count;
}

std::vector<OpenAlarm> Ledger::open_alarms() const {
    std::vector<OpenAlarm> alarms;
    for (std::size_t i = 0; i < gateways_.size(); ++i) {
        std::lock_guard<std::mutex> lock(gateways_[i]->mutex);
        for (const auto& [id, open] : gateways_[i]->open) {
            alarms.push_back({static_cast<int>(i), id, open.acked});
        }
    }
    return alarms;
}

std::size_t Ledger::connects_between(Steady::time_point from, Steady::time_point to) const {
    std::lock_guard<std::mutex> lock(connects_mutex_);
    return static_cast<std::size_t>(std::count_if(
        connects_.begin(), connects_.end(), [&](auto at) { return at >= from && at < to; }));
}

int Ledger::peak_connects_per_s(Steady::time_point from, Steady::time_point to) const {
    std::map<int64_t, int> per_second;
    std::lock_guard<std::mutex> lock(connects_mutex_);
    for (const auto at : connects_) {
        if (at < from || at >= to) continue;
        ++per_second[std::chrono::duration_cast<std::chrono::seconds>(at - from).count()];
    }
    int peak = 0;
    for (const auto& [second, count] : per_second) peak = std::max(peak, count);
    return peak;
}

}  // namespace outpost::fleet
