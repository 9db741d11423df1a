#include "daemon/telemetry_scheduling.h"

#include <sched.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "telemetry/lane_impl.h"

namespace outpost::daemon {

std::optional<TelemetryScheduling> parse_telemetry_scheduling(std::string_view name) {
    if (name == "nice") return TelemetryScheduling::kNice;
    if (name == "idle") return TelemetryScheduling::kIdle;
    return std::nullopt;
}

const char* telemetry_scheduling_name(TelemetryScheduling scheduling) {
    return scheduling == TelemetryScheduling::kIdle ? "idle" : "nice";
}

Status apply_telemetry_scheduling(TelemetryScheduling scheduling) {
    // The nice value first, in both cases: the lane's threads set it again
    // (lower_thread_priority), which under SCHED_IDLE changes nothing.
    if (!lower_thread_priority()) {
        return Status::error(StatusCode::kIoError,
                             std::string("setpriority: ") + std::strerror(errno));
    }
    if (scheduling == TelemetryScheduling::kIdle) {
        const sched_param param{};  // SCHED_IDLE takes priority 0
        if (::sched_setscheduler(0, SCHED_IDLE, &param) != 0) {
            return Status::error(
                StatusCode::kIoError,
                std::string("sched_setscheduler(SCHED_IDLE): ") + std::strerror(errno));
        }
    }
    return Status::ok();
}

}  // namespace outpost::daemon
