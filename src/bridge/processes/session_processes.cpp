#include "bridge/processes/session_processes.h"

#include <algorithm>

#include "bridge/processes/figures_line.h"
#include "common/service_log.h"

namespace outpost::bridge {
namespace {

// Adds `from` (a later or another process's figures) to `to`.
void add_figures(BridgeFigures& to, const BridgeFigures& from) {
    to.received += from.received;
    to.redelivered += from.redelivered;
    to.forwarded += from.forwarded;
    to.duplicates += from.duplicates;
    to.paced += from.paced;
    to.batches += from.batches;
    to.batched += from.batched;
    to.quarantined_total += from.quarantined_total;
    for (const auto& [reason, count] : from.quarantined) to.quarantined[reason] += count;
    to.rocketmq_errors_total += from.rocketmq_errors_total;
    for (const auto& [code, count] : from.rocketmq_errors) to.rocketmq_errors[code] += count;
    to.holding = to.holding || from.holding;
    to.held_ms_max = std::max(to.held_ms_max, from.held_ms_max);
    to.mqtt_connects += from.mqtt_connects;
    for (const auto& [client_id, connected] : from.mqtt_sessions) {
        to.mqtt_sessions[client_id] = connected;
    }
    for (const auto& [client_id, state] : from.retired_sessions) {
        to.retired_sessions[client_id] = state;
    }
    to.send_latency.merge(from.send_latency);
    to.forward_latency.merge(from.forward_latency);
    to.wait_latency.merge(from.wait_latency);
    if (!from.rocketmq_refused.empty()) to.rocketmq_refused = from.rocketmq_refused;
    if (from.receipts) {
        ReceiptFigures& sum = to.receipts ? *to.receipts : to.receipts.emplace();
        sum.ids_offered += from.receipts->ids_offered;
        sum.ids_sent += from.receipts->ids_sent;
        sum.ids_dropped += from.receipts->ids_dropped;
        sum.messages_sent += from.receipts->messages_sent;
        sum.messages_failed += from.receipts->messages_failed;
        sum.acked += from.receipts->acked;
        sum.ack_failed += from.receipts->ack_failed;
        sum.rejections_offered += from.receipts->rejections_offered;
    }
    to.abandoned += from.abandoned;
}

}  // namespace

SessionProcesses::SessionProcesses() : started_(std::chrono::steady_clock::now()) {}

Result<std::unique_ptr<SessionProcesses>> SessionProcesses::start(const BridgeConfig& config,
                                                                  const std::string& program,
                                                                  const std::string& config_path) {
    std::unique_ptr<SessionProcesses> processes(new SessionProcesses());
    SessionProcesses* self = processes.get();
    for (int index = 0; index < config.mqtt.sessions; ++index) {
        Lane lane;
        lane.client_id = session_client_id(config.mqtt.endpoint.client_id, index);
        lane.ended.mqtt_sessions[lane.client_id] = false;
        self->lanes_.push_back(std::move(lane));
    }
    // A session process stops within one send with all its attempts plus
    // its disconnect bound (main.cpp, run_bridge); then it is killed.
    const std::chrono::milliseconds stop_timeout =
        std::chrono::milliseconds(config.rocketmq.send_timeout_ms) *
            (config.rocketmq.max_attempts + 1) +
        std::chrono::seconds(15);
    for (int index = 0; index < config.mqtt.sessions; ++index) {
        const std::size_t lane = static_cast<std::size_t>(index);
        ChildSupervisorOptions options;
        options.name = "session process " + std::to_string(index);
        options.thread_name = "session-sup-" + std::to_string(index);
        options.command = {program, "--config", config_path, "--session", std::to_string(index)};
        options.restart_initial = config.mqtt.endpoint.reconnect_initial;
        options.restart_max = config.mqtt.endpoint.reconnect_max;
        options.start_timeout = config.mqtt.endpoint.connect_timeout + std::chrono::seconds(15);
        options.stop_timeout = stop_timeout;
        options.restart_note =
            " (" + self->lanes_[lane].client_id + "; its unacknowledged messages are redelivered)";
        options.on_report = [self, lane](std::string_view line) {
            return self->take_report(lane, line);
        };
        options.on_exit = [self, lane] { self->life_ended(lane); };
        options.log = child_log_to(log_info, log_warning, log_error);
        Result<std::unique_ptr<ChildSupervisor>> child = ChildSupervisor::start(std::move(options));
        if (!child.is_ok()) return child.status();  // the destructor stops those started
        self->children_.push_back(std::move(child).value());
    }
    return processes;
}

SessionProcesses::~SessionProcesses() {
    stop();
}

void SessionProcesses::stop() {
    for (const auto& child : children_) child->request_stop();
    for (const auto& child : children_) child->stop();
}

bool SessionProcesses::take_report(std::size_t lane, std::string_view line) {
    std::optional<BridgeFigures> figures = parse_figures_line(line);
    if (!figures) return false;
    std::lock_guard<std::mutex> lock(mutex_);
    lanes_[lane].current = std::move(*figures);
    return true;
}

void SessionProcesses::life_ended(std::size_t lane) {
    std::lock_guard<std::mutex> lock(mutex_);
    Lane& own = lanes_[lane];
    BridgeFigures last = std::move(own.current);
    last.abandoned += last.in_hand();  // the broker redelivers them
    last.holding = false;
    for (auto& [client_id, connected] : last.mqtt_sessions) connected = false;
    // The next life connects a retired session again unless it ended.
    for (auto& [client_id, state] : last.retired_sessions) {
        if (state == RetiredState::kDraining) state = RetiredState::kWaiting;
    }
    add_figures(own.ended, last);
    own.current = BridgeFigures{};
}

BridgeFigures SessionProcesses::lane_figures(const Lane& lane) const {
    BridgeFigures figures = lane.ended;
    add_figures(figures, lane.current);
    figures.uptime = std::chrono::steady_clock::now() - started_;
    return figures;
}

std::vector<BridgeFigures> SessionProcesses::lanes() const {
    std::lock_guard<std::mutex> lock(mutex_);
    std::vector<BridgeFigures> figures;
    for (const Lane& lane : lanes_) figures.push_back(lane_figures(lane));
    return figures;
}

BridgeFigures SessionProcesses::figures() const {
    BridgeFigures total;
    for (const BridgeFigures& lane : lanes()) add_figures(total, lane);
    total.uptime = std::chrono::steady_clock::now() - started_;
    for (const auto& child : children_) {
        total.process_restarts += child->restarts();
        total.process_pids.push_back(static_cast<long>(child->pid()));
    }
    return total;
}

bool SessionProcesses::all_connected() const {
    const BridgeFigures total = figures();
    for (std::size_t index = 0; index < children_.size(); ++index) {
        if (children_[index]->pid() <= 0) return false;
    }
    for (const auto& [client_id, connected] : total.mqtt_sessions) {
        if (!connected) return false;
    }
    return !total.mqtt_sessions.empty();
}

}  // namespace outpost::bridge
