#include "daemon/telemetry_stats_line.h"

#include <cstdint>

#include "common/child_report.h"

namespace outpost::daemon {

std::string format_telemetry_stats(const TelemetryStats& stats) {
    std::string last_error;
    for (char c : stats.last_error) last_error += (c == '\n' || c == '\r') ? ' ' : c;
    const nlohmann::json report = {{"offered", stats.offered},
                                   {"published", stats.published},
                                   {"coalesced", stats.coalesced},
                                   {"ring_full", stats.dropped_ring_full},
                                   {"oversize", stats.dropped_oversize},
                                   {"invalid", stats.dropped_invalid},
                                   {"disconnected", stats.dropped_disconnected},
                                   {"datagrams", stats.datagrams},
                                   {"ring_depth", stats.ring_depth},
                                   {"connected", stats.connected},
                                   {"reconnects", stats.reconnects},
                                   {"last_error", last_error}};
    return format_child_report(kTelemetryReport, report);
}

std::optional<TelemetryStats> parse_telemetry_stats(std::string_view line) {
    const std::optional<nlohmann::json> in = parse_child_report(kTelemetryReport, line);
    if (!in) return std::nullopt;
    try {
        TelemetryStats stats;
        stats.offered = in->at("offered").get<std::uint64_t>();
        stats.published = in->at("published").get<std::uint64_t>();
        stats.coalesced = in->at("coalesced").get<std::uint64_t>();
        stats.dropped_ring_full = in->at("ring_full").get<std::uint64_t>();
        stats.dropped_oversize = in->at("oversize").get<std::uint64_t>();
        stats.dropped_invalid = in->at("invalid").get<std::uint64_t>();
        stats.dropped_disconnected = in->at("disconnected").get<std::uint64_t>();
        stats.datagrams = in->at("datagrams").get<std::uint64_t>();
        stats.ring_depth = in->at("ring_depth").get<std::size_t>();
        stats.connected = in->at("connected").get<bool>();
        stats.reconnects = in->at("reconnects").get<std::uint64_t>();
        stats.last_error = in->at("last_error").get<std::string>();
        return stats;
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
}

}  // namespace outpost::daemon
