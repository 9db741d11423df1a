#include "daemon/telemetry_stats_line.h"

#include <cinttypes>
#include <cstdio>

namespace outpost::daemon {

std::string format_telemetry_stats(const TelemetryStats& stats) {
    char numbers[256];
    std::snprintf(numbers, sizeof numbers,
                  "T %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
                  " %" PRIu64 " %" PRIu64 " %zu %d %" PRIu64 " ",
                  stats.offered, stats.published, stats.coalesced, stats.dropped_ring_full,
                  stats.dropped_oversize, stats.dropped_invalid, stats.dropped_disconnected,
                  stats.datagrams, stats.ring_depth, stats.connected ? 1 : 0, stats.reconnects);
    std::string line = numbers;
    for (char c : stats.last_error) line += (c == '\n' || c == '\r') ? ' ' : c;
    line += '\n';
    return line;
}

std::optional<TelemetryStats> parse_telemetry_stats(std::string_view line) {
    const std::string text(line);
    TelemetryStats stats;
    int connected = 0;
    int consumed = 0;
    const int fields =
        std::sscanf(text.c_str(),
                    "T %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
                    " %" SCNu64 " %" SCNu64 " %zu %d %" SCNu64 " %n",
                    &stats.offered, &stats.published, &stats.coalesced, &stats.dropped_ring_full,
                    &stats.dropped_oversize, &stats.dropped_invalid, &stats.dropped_disconnected,
                    &stats.datagrams, &stats.ring_depth, &connected, &stats.reconnects, &consumed);
    if (fields != 11 || consumed <= 0) return std::nullopt;
    stats.connected = connected != 0;
    stats.last_error = text.substr(static_cast<size_t>(consumed));
    return stats;
}

}  // namespace outpost::daemon
