// What a child process under ChildSupervisor (child_supervisor.h) reports
// to the service that supervises it, and how: one line per report on the
// descriptor the supervisor gave it,
//
//     <kind> <JSON object>\n
//
// <kind> is one letter naming whose report it is (kChildReportKinds), so
// a report of another kind, or a stray log line, is refused rather than
// misread. The object is a whole snapshot of the child's life so far, so
// the parent keeps only the latest; its fields are the kind's own. Not a
// public format: both ends are the same build.
#ifndef OUTPOST_COMMON_CHILD_REPORT_H
#define OUTPOST_COMMON_CHILD_REPORT_H

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace outpost {

// The kinds, one letter each, in one place so that no two children share one.
// outpost-telemetry's counters (daemon/telemetry_stats_line.h).
inline constexpr char kTelemetryReport = 'T';
// An outpost-bridge session process's figures
// (bridge/processes/figures_line.h).
inline constexpr char kBridgeSessionReport = 'B';

// The line of `report` (a JSON object), newline included. Text that is not
// UTF-8 is replaced, never thrown about.
std::string format_child_report(char kind, const nlohmann::json& report);

// The object of one line (without its newline); nullopt when the line is
// not a report of `kind`: another letter, no space after it, or a rest that
// is not one JSON object.
std::optional<nlohmann::json> parse_child_report(char kind, std::string_view line);

// Writes the whole of `line` to `fd`, again after EINTR; false when a
// write fails. (With SIGPIPE at its default, as the supervisor starts its
// children, a pipe whose parent is gone ends the child before that.)
bool write_child_report(int fd, std::string_view line);

}  // namespace outpost

#endif  // OUTPOST_COMMON_CHILD_REPORT_H
