// How the telemetry process reports its counters to outpostd: a child
// report of kind kTelemetryReport (common/child_report.h),
//
//     T {"offered":..,"published":..,"coalesced":..,"ring_full":..,
//        "oversize":..,"invalid":..,"disconnected":..,"datagrams":..,
//        "ring_depth":..,"connected":true,"reconnects":..,"last_error":".."}\n
//
// (one line; newlines in last_error become spaces, as outpostd shows it on
// one line). Each line is a whole snapshot, so a reader keeps only the
// latest.
#ifndef OUTPOST_DAEMON_TELEMETRY_STATS_LINE_H
#define OUTPOST_DAEMON_TELEMETRY_STATS_LINE_H

#include <optional>
#include <string>
#include <string_view>

#include "outpost/telemetry.h"

namespace outpost::daemon {

// The line for `stats`, newline included.
std::string format_telemetry_stats(const TelemetryStats& stats);

// The stats of one line (without its newline); nullopt when it is not a
// whole telemetry report.
std::optional<TelemetryStats> parse_telemetry_stats(std::string_view line);

}  // namespace outpost::daemon

#endif  // OUTPOST_DAEMON_TELEMETRY_STATS_LINE_H
