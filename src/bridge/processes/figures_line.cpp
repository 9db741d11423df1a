#include "bridge/processes/figures_line.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "common/child_report.h"

namespace outpost::bridge {
namespace {

// A latency histogram as the line carries it: its sum and nonzero buckets.
nlohmann::json histogram_json(const LatencyHistogram& histogram) {
    return {{"sum_us", histogram.sum_us()}, {"buckets", histogram.nonzero_buckets()}};
}

// The histogram histogram_json() wrote; throws nlohmann::json's errors.
LatencyHistogram histogram_from(const nlohmann::json& in) {
    return LatencyHistogram::from_buckets(
        in.at("buckets").get<std::vector<std::pair<int, std::uint64_t>>>(),
        in.at("sum_us").get<std::uint64_t>());
}

}  // namespace

std::string format_figures_line(const BridgeFigures& figures) {
    nlohmann::json line = {{"received", figures.received},
                           {"redelivered", figures.redelivered},
                           {"forwarded", figures.forwarded},
                           {"duplicates", figures.duplicates},
                           {"paced", figures.paced},
                           {"batches", figures.batches},
                           {"batched", figures.batched},
                           {"quarantined_total", figures.quarantined_total},
                           {"quarantined", figures.quarantined},
                           {"errors_total", figures.rocketmq_errors_total},
                           {"errors", figures.rocketmq_errors},
                           {"holding", figures.holding},
                           {"held_ms_max", figures.held_ms_max},
                           {"connects", figures.mqtt_connects},
                           {"sessions", figures.mqtt_sessions},
                           {"refused", figures.rocketmq_refused},
                           {"latency", histogram_json(figures.send_latency)},
                           {"forward_latency", histogram_json(figures.forward_latency)},
                           {"wait_latency", histogram_json(figures.wait_latency)}};
    if (!figures.retired_sessions.empty()) {
        line["retired"] = retired_state_names(figures.retired_sessions);
    }
    if (figures.receipts) {
        const ReceiptFigures& r = *figures.receipts;
        line["receipts"] = {r.ids_offered,     r.ids_sent, r.ids_dropped, r.messages_sent,
                            r.messages_failed, r.acked,    r.ack_failed, r.rejections_offered};
    }
    return format_child_report(kBridgeSessionReport, line);
}

std::optional<BridgeFigures> parse_figures_line(std::string_view line) {
    const std::optional<nlohmann::json> report = parse_child_report(kBridgeSessionReport, line);
    if (!report) return std::nullopt;
    const nlohmann::json& in = *report;
    try {
        BridgeFigures figures;
        figures.received = in.at("received").get<std::uint64_t>();
        figures.redelivered = in.at("redelivered").get<std::uint64_t>();
        figures.forwarded = in.at("forwarded").get<std::uint64_t>();
        figures.duplicates = in.at("duplicates").get<std::uint64_t>();
        figures.paced = in.at("paced").get<std::uint64_t>();
        figures.batches = in.at("batches").get<std::uint64_t>();
        figures.batched = in.at("batched").get<std::uint64_t>();
        figures.quarantined_total = in.at("quarantined_total").get<std::uint64_t>();
        figures.quarantined = in.at("quarantined").get<std::map<std::string, std::uint64_t>>();
        figures.rocketmq_errors_total = in.at("errors_total").get<std::uint64_t>();
        figures.rocketmq_errors = in.at("errors").get<std::map<std::string, std::uint64_t>>();
        figures.holding = in.at("holding").get<bool>();
        figures.held_ms_max = in.at("held_ms_max").get<std::int64_t>();
        figures.mqtt_connects = in.at("connects").get<std::uint64_t>();
        figures.mqtt_sessions = in.at("sessions").get<std::map<std::string, bool>>();
        figures.rocketmq_refused = in.at("refused").get<std::string>();
        figures.send_latency = histogram_from(in.at("latency"));
        figures.forward_latency = histogram_from(in.at("forward_latency"));
        figures.wait_latency = histogram_from(in.at("wait_latency"));
        if (in.contains("retired")) {
            for (const auto& [client_id, name] :
                 in.at("retired").get<std::map<std::string, std::string>>()) {
                const std::optional<RetiredState> state = parse_retired_state(name);
                if (!state) return std::nullopt;
                figures.retired_sessions[client_id] = *state;
            }
        }
        if (in.contains("receipts")) {
            const auto r = in.at("receipts").get<std::vector<std::int64_t>>();
            if (r.size() != 8) return std::nullopt;
            figures.receipts = ReceiptFigures{r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]};
        }
        return figures;
    } catch (const nlohmann::json::exception&) {
        return std::nullopt;
    }
}

}  // namespace outpost::bridge
