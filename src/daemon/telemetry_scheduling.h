// How outpost-telemetry asks the kernel to share the CPU with the alarm path
// (configuration "telemetry.scheduling"; DESIGN.md "The telemetry process").
// One home for the policy: the process applies it to itself at start,
// before any thread exists, so every thread it creates (the lane's, paho's)
// inherits it.
//
//   "nice" (default)  SCHED_OTHER at nice kTelemetryNice (10): weight 110
//                     against 1,024 for a nice-0 alarm thread; it always
//                     runs, a little, however busy the CPU is.
//   "idle"            SCHED_IDLE: weight 3, runs only where no normal thread
//                     wants the CPU. The alarm path gets the CPU before it
//                     every time, but on a CPU busy for seconds the
//                     telemetry connection's keep-alive and the datagram
//                     socket's reader wait that long too.
#ifndef OUTPOST_DAEMON_TELEMETRY_SCHEDULING_H
#define OUTPOST_DAEMON_TELEMETRY_SCHEDULING_H

#include <optional>
#include <string_view>

#include "outpost/status.h"

namespace outpost::daemon {

enum class TelemetryScheduling { kNice, kIdle };

// "nice" or "idle"; nullopt for anything else.
std::optional<TelemetryScheduling> parse_telemetry_scheduling(std::string_view name);
const char* telemetry_scheduling_name(TelemetryScheduling scheduling);

// Applies `scheduling` to the calling thread (threads it creates afterwards
// inherit it). Errors: kIoError with errno's text when the kernel refused
// (a seccomp filter, say); the thread keeps what it had.
Status apply_telemetry_scheduling(TelemetryScheduling scheduling);

}  // namespace outpost::daemon

#endif  // OUTPOST_DAEMON_TELEMETRY_SCHEDULING_H
