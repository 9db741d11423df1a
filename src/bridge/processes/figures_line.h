// How a session process (session_processes.h) reports its figures to the
// bridge process that supervises it: a child report of kind
// kBridgeSessionReport (common/child_report.h),
//
//     B {"received":..,"forwarded":..,...,"latency":{"sum_us":..,"buckets":[[i,n],..]}}\n
//
// a whole snapshot of BridgeFigures since that process started (counters
// only grow within one life), so the reader keeps only the latest.
#ifndef OUTPOST_BRIDGE_PROCESSES_FIGURES_LINE_H
#define OUTPOST_BRIDGE_PROCESSES_FIGURES_LINE_H

#include <optional>
#include <string>
#include <string_view>

#include "bridge/ops/bridge_stats.h"

namespace outpost::bridge {

// The line for `figures`, newline included. uptime is not carried.
std::string format_figures_line(const BridgeFigures& figures);

// The figures of one line (without its newline); nullopt when it is not one.
std::optional<BridgeFigures> parse_figures_line(std::string_view line);

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_PROCESSES_FIGURES_LINE_H
