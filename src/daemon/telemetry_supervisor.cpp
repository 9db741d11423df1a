#include "daemon/telemetry_supervisor.h"

#include "common/service_log.h"
#include "daemon/telemetry_stats_line.h"

namespace outpost::daemon {
namespace {

// What a dead life's counters add to the totals.
void add_counters(TelemetryStats& to, const TelemetryStats& from) {
    to.offered += from.offered;
    to.published += from.published;
    to.coalesced += from.coalesced;
    to.dropped_ring_full += from.dropped_ring_full;
    to.dropped_oversize += from.dropped_oversize;
    to.dropped_invalid += from.dropped_invalid;
    // What was still in its ring went with it.
    to.dropped_disconnected += from.dropped_disconnected + from.ring_depth;
    to.datagrams += from.datagrams;
    to.reconnects += from.reconnects;
}

}  // namespace

Result<std::unique_ptr<TelemetrySupervisor>> TelemetrySupervisor::start(
    const TelemetrySupervisorOptions& options) {
    if (options.command.empty()) {
        return Status::error(StatusCode::kInvalidArgument, "telemetry process: no command");
    }
    std::unique_ptr<TelemetrySupervisor> supervisor(new TelemetrySupervisor());
    TelemetrySupervisor* self = supervisor.get();
    ChildSupervisorOptions child;
    child.name = "telemetry process";
    child.thread_name = "outpost-tele-sup";
    child.command = options.command;
    child.restart_initial = options.restart_initial;
    child.restart_max = options.restart_max;
    child.start_timeout = options.start_timeout;
    child.stop_timeout = kStopTimeout;
    child.restart_note = " (alarms are not affected)";
    child.on_report = [self](std::string_view line) { return self->take_report(line); };
    child.on_exit = [self] { self->life_ended(); };
    child.log = child_log_to(log_info, log_warning, log_error);
    Result<std::unique_ptr<ChildSupervisor>> started = ChildSupervisor::start(std::move(child));
    if (!started.is_ok()) return started.status();
    supervisor->child_ = std::move(started).value();
    return supervisor;
}

TelemetrySupervisor::~TelemetrySupervisor() {
    if (child_) child_->stop();
}

bool TelemetrySupervisor::take_report(std::string_view line) {
    std::optional<TelemetryStats> stats = parse_telemetry_stats(line);
    if (!stats) return false;
    std::lock_guard<std::mutex> lock(mutex_);
    current_ = std::move(*stats);
    return true;
}

void TelemetrySupervisor::life_ended() {
    std::lock_guard<std::mutex> lock(mutex_);
    add_counters(base_, current_);
    if (!current_.last_error.empty()) base_.last_error = current_.last_error;
    current_ = TelemetryStats{};
}

TelemetryStats TelemetrySupervisor::stats() const {
    const bool running = child_->pid() > 0;
    std::lock_guard<std::mutex> lock(mutex_);
    TelemetryStats stats = base_;
    add_counters(stats, current_);
    stats.dropped_disconnected -= current_.ring_depth;  // a live ring still holds them
    stats.ring_depth = current_.ring_depth;
    stats.connected = running && current_.connected;
    if (!current_.last_error.empty()) stats.last_error = current_.last_error;
    return stats;
}

}  // namespace outpost::daemon
