#include "bridge/bridge_stats.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace outpost::bridge {
namespace {

double round_to_hundredths(double value) {
    return std::round(value * 100.0) / 100.0;
}

}  // namespace

BridgeStats::BridgeStats() : started_(std::chrono::steady_clock::now()) {}

void BridgeStats::message_received(bool redelivered) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++received_;
    if (redelivered) ++redelivered_;
}

void BridgeStats::message_forwarded(std::chrono::microseconds send_latency) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++forwarded_;
    latency_.record(send_latency);
}

void BridgeStats::message_quarantined(QuarantineReason reason) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++quarantined_total_;
    ++quarantined_[quarantine_reason_name(reason)];
}

void BridgeStats::duplicate_suppressed() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++duplicates_;
}

void BridgeStats::rocketmq_error(StatusCode code) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++errors_total_;
    ++errors_[status_code_name(code)];
}

void BridgeStats::holding(bool held, std::chrono::milliseconds held_for) {
    std::lock_guard<std::mutex> lock(mutex_);
    holding_ = held;
    held_ms_max_ = std::max<std::int64_t>(held_ms_max_, held_for.count());
}

void BridgeStats::mqtt_connected(bool connected) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (connected && !connected_) ++connects_;
    connected_ = connected;
}

std::uint64_t BridgeStats::forwarded() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return forwarded_;
}

std::uint64_t BridgeStats::quarantined() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return quarantined_total_;
}

std::string BridgeStats::to_json_line() const {
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard<std::mutex> lock(mutex_);
    nlohmann::json quarantined = {{"total", quarantined_total_}};
    for (const auto& [reason, count] : quarantined_) quarantined[reason] = count;
    nlohmann::json errors = {{"total", errors_total_}};
    for (const auto& [code, count] : errors_) errors[code] = count;
    nlohmann::json line = {
        {"ts_ms", std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count()},
        {"uptime_s", std::chrono::duration_cast<std::chrono::seconds>(now - started_).count()},
        {"mqtt_connected", connected_},
        {"mqtt_connects", connects_},
        {"received", received_},
        {"redelivered", redelivered_},
        {"forwarded", forwarded_},
        {"duplicates_suppressed", duplicates_},
        {"quarantined", quarantined},
        {"rocketmq_errors", errors},
        {"holding", holding_},
        {"held_ms_max", held_ms_max_},
        {"send_latency_ms",
         {{"count", latency_.count()},
          {"p50", round_to_hundredths(latency_.percentile_us(0.50) / 1000.0)},
          {"p99", round_to_hundredths(latency_.percentile_us(0.99) / 1000.0)}}}};
    if (receipt_source_) {  // receipts (issue 11)
        const ReceiptFigures figures = receipt_source_();
        line["receipts"] = {{"ids_offered", figures.ids_offered},
                            {"ids_sent", figures.ids_sent},
                            {"ids_dropped", figures.ids_dropped},
                            {"messages_sent", figures.messages_sent},
                            {"messages_failed", figures.messages_failed},
                            {"acked", figures.acked},
                            {"ack_failed", figures.ack_failed}};
    }
    // Replace, not throw, should a string ever hold invalid UTF-8.
    return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace outpost::bridge
