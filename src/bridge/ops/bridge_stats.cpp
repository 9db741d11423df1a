#include "bridge/ops/bridge_stats.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "bridge/rocketmq/rocketmq_error_label.h"

namespace outpost::bridge {
namespace {

double round_to_hundredths(double value) {
    return std::round(value * 100.0) / 100.0;
}

}  // namespace

const char* retired_state_name(RetiredState state) {
    switch (state) {
        case RetiredState::kWaiting:
            return "waiting";
        case RetiredState::kDraining:
            return "draining";
        case RetiredState::kDrained:
            return "drained";
        case RetiredState::kEnded:
            return "ended";
    }
    return "waiting";
}

std::optional<RetiredState> parse_retired_state(std::string_view name) {
    for (const RetiredState state : kAllRetiredStates) {
        if (name == retired_state_name(state)) return state;
    }
    return std::nullopt;
}

std::map<std::string, std::string> retired_state_names(
    const std::map<std::string, RetiredState>& states) {
    std::map<std::string, std::string> names;
    for (const auto& [client_id, state] : states) names[client_id] = retired_state_name(state);
    return names;
}

BridgeStats::BridgeStats() : started_(std::chrono::steady_clock::now()) {}

void BridgeStats::message_received(bool redelivered) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++received_;
    if (redelivered) ++redelivered_;
}

void BridgeStats::message_forwarded(std::chrono::microseconds send_latency,
                                    std::chrono::microseconds forward_latency,
                                    std::chrono::microseconds wait_latency) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++forwarded_;
    latency_.record(send_latency);
    forward_latency_.record(forward_latency);
    wait_latency_.record(wait_latency);
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

void BridgeStats::message_paced() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++paced_;
}

void BridgeStats::batch_forwarded(std::size_t messages) {
    std::lock_guard<std::mutex> lock(mutex_);
    ++batches_;
    batched_ += messages;
}

void BridgeStats::rocketmq_error(StatusCode code, std::optional<std::int32_t> response_code) {
    const std::string key = rocketmq_error_label(code, response_code).key();
    std::lock_guard<std::mutex> lock(mutex_);
    ++errors_total_;
    ++errors_[key];
}

void BridgeStats::holding(bool held, std::chrono::milliseconds held_for) {
    std::lock_guard<std::mutex> lock(mutex_);
    holding_ = held;
    held_ms_max_ = std::max<std::int64_t>(held_ms_max_, held_for.count());
}

void BridgeStats::rocketmq_refused(const std::string& why) {
    std::lock_guard<std::mutex> lock(mutex_);
    refused_ = why;
}

void BridgeStats::mqtt_connected(const std::string& client_id, bool connected) {
    std::lock_guard<std::mutex> lock(mutex_);
    bool& session = sessions_[client_id];
    if (connected && !session) ++connects_;
    session = connected;
}

void BridgeStats::retired_session(const std::string& client_id, RetiredState state) {
    std::lock_guard<std::mutex> lock(mutex_);
    retired_[client_id] = state;
}

std::uint64_t BridgeStats::forwarded() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return forwarded_;
}

std::uint64_t BridgeStats::quarantined() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return quarantined_total_;
}

BridgeFigures BridgeStats::figures() const {
    const auto now = std::chrono::steady_clock::now();
    BridgeFigures figures;
    // Outside mutex_: the receipt side has locks of its own.
    if (receipt_source_) figures.receipts = receipt_source_();
    std::lock_guard<std::mutex> lock(mutex_);
    figures.uptime = now - started_;
    figures.received = received_;
    figures.redelivered = redelivered_;
    figures.forwarded = forwarded_;
    figures.duplicates = duplicates_;
    figures.paced = paced_;
    figures.batches = batches_;
    figures.batched = batched_;
    figures.quarantined_total = quarantined_total_;
    figures.quarantined = quarantined_;
    figures.rocketmq_errors_total = errors_total_;
    figures.rocketmq_errors = errors_;
    figures.holding = holding_;
    figures.held_ms_max = held_ms_max_;
    figures.mqtt_connects = connects_;
    figures.mqtt_sessions = sessions_;
    figures.retired_sessions = retired_;
    figures.send_latency = latency_;
    figures.forward_latency = forward_latency_;
    figures.wait_latency = wait_latency_;
    figures.rocketmq_refused = refused_;
    return figures;
}

std::string figures_json_line(const BridgeFigures& now) {
    nlohmann::json quarantined = {{"total", now.quarantined_total}};
    for (const auto& [reason, count] : now.quarantined) quarantined[reason] = count;
    nlohmann::json errors = {{"total", now.rocketmq_errors_total}};
    for (const auto& [code, count] : now.rocketmq_errors) errors[code] = count;
    bool all_connected = !now.mqtt_sessions.empty();
    nlohmann::json sessions = nlohmann::json::object();
    for (const auto& [client_id, connected] : now.mqtt_sessions) {
        sessions[client_id] = connected;
        all_connected = all_connected && connected;
    }
    const auto percentiles = [](const LatencyHistogram& latency) {
        return nlohmann::json{
            {"count", latency.count()},
            {"p50", round_to_hundredths(latency.percentile_us(0.50) / 1000.0)},
            {"p99", round_to_hundredths(latency.percentile_us(0.99) / 1000.0)}};
    };
    nlohmann::json line = {
        {"ts_ms", std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count()},
        {"uptime_s", std::chrono::duration_cast<std::chrono::seconds>(now.uptime).count()},
        {"mqtt_connected", all_connected},
        {"mqtt_connects", now.mqtt_connects},
        {"received", now.received},
        {"redelivered", now.redelivered},
        {"forwarded", now.forwarded},
        {"duplicates_suppressed", now.duplicates},
        {"paced", now.paced},
        {"batches", now.batches},
        {"batched", now.batched},
        {"quarantined", quarantined},
        {"rocketmq_errors", errors},
        {"holding", now.holding},
        {"held_ms_max", now.held_ms_max},
        {"send_latency_ms", percentiles(now.send_latency)},
        {"forward_latency_ms", percentiles(now.forward_latency)},
        {"wait_latency_ms", percentiles(now.wait_latency)},
        {"mqtt_sessions", sessions}};
    if (!now.retired_sessions.empty()) {
        line["retired_sessions"] = retired_state_names(now.retired_sessions);
    }
    if (!now.rocketmq_refused.empty()) line["rocketmq_refused"] = now.rocketmq_refused;
    if (!now.tls_verify_disabled.empty()) line["tls_verify_disabled"] = now.tls_verify_disabled;
    if (!now.rocketmq_brokers.empty()) {
        nlohmann::json brokers = nlohmann::json::object();
        for (const rocketmq::BrokerReport& report : now.rocketmq_brokers) {
            const rocketmq::BrokerDurability& judged = report.durability;
            brokers[report.broker_name] = {{"address", report.address},
                                           {"flushDiskType", judged.flush_disk_type},
                                           {"brokerRole", judged.broker_role},
                                           {"inSyncReplicas", judged.in_sync_replicas},
                                           {"durable", rocketmq::durability_name(judged.verdict)},
                                           {"reason", judged.reason}};
        }
        line["rocketmq_brokers"] = brokers;
    }
    if (now.receipts) {  // receipts
        const ReceiptFigures& receipts = *now.receipts;
        line["receipts"] = {{"ids_offered", receipts.ids_offered},
                            {"ids_sent", receipts.ids_sent},
                            {"ids_dropped", receipts.ids_dropped},
                            {"messages_sent", receipts.messages_sent},
                            {"messages_failed", receipts.messages_failed},
                            {"acked", receipts.acked},
                            {"ack_failed", receipts.ack_failed},
                            {"rejections_offered", receipts.rejections_offered}};
    }
    if (!now.process_pids.empty()) {  // session_processes.h
        line["session_processes"] = {{"restarts", now.process_restarts},
                                     {"pids", now.process_pids}};
    }
    // Replace, not throw, should a string ever hold invalid UTF-8.
    return line.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace outpost::bridge
