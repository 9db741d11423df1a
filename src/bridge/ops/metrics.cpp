#include "bridge/ops/metrics.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>

#include "bridge/quarantine_reason.h"
#include "bridge/rocketmq/rocketmq_error_label.h"
#include "common/prometheus_text.h"

namespace outpost::bridge {
namespace {

// Every reason, so that a series exists (at 0) before its first message and
// rate() works from the first scrape.
constexpr QuarantineReason kAllReasons[] = {
    QuarantineReason::kPayloadTooLarge,  QuarantineReason::kInvalidUtf8,
    QuarantineReason::kMalformedJson,    QuarantineReason::kJsonTooDeep,
    QuarantineReason::kSchemaViolation,  QuarantineReason::kGatewayMismatch,
    QuarantineReason::kDeviceMismatch,   QuarantineReason::kUnmappedTopic,
    QuarantineReason::kRocketMqRejected,
};

// Histogram bounds: powers of two microseconds are edges of LatencyHistogram's
// buckets, so each cumulative count is exact. 128 us .. 8.4 s.
constexpr int kFirstBoundLog2Us = 7;
constexpr int kLastBoundLog2Us = 23;

void render_latency(PrometheusText& out, const char* name, const char* help,
                    const LatencyHistogram& latency) {
    out.family(name, "histogram", help);
    const std::string bucket = std::string(name) + "_bucket";
    for (int log2_us = kFirstBoundLog2Us; log2_us <= kLastBoundLog2Us; ++log2_us) {
        const std::chrono::microseconds bound(std::int64_t{1} << log2_us);
        out.sample(bucket.c_str(),
                   PrometheusText::labels(
                       {{"le", PrometheusText::number(static_cast<double>(bound.count()) / 1e6)}}),
                   latency.count_below(bound));
    }
    out.sample(bucket.c_str(), PrometheusText::labels({{"le", "+Inf"}}), latency.count());
    out.sample((std::string(name) + "_sum").c_str(), "",
               PrometheusText::number(static_cast<double>(latency.sum_us()) / 1e6));
    out.sample((std::string(name) + "_count").c_str(), "", latency.count());
}

}  // namespace

std::string render_bridge_metrics(const BridgeFigures& figures) {
    PrometheusText out;
    out.gauge("outpost_bridge_uptime_seconds", "Seconds since outpost-bridge started.",
              std::chrono::duration_cast<std::chrono::seconds>(figures.uptime).count());
    out.counter("outpost_bridge_received_total", "MQTT messages received, redeliveries included.",
                figures.received);
    out.counter("outpost_bridge_redelivered_total",
                "MQTT messages received with DUP set (redelivered by the broker).",
                figures.redelivered);
    out.counter("outpost_bridge_forwarded_total",
                "Messages stored in RocketMQ (SEND_OK), then acknowledged to MQTT.",
                figures.forwarded);
    out.counter("outpost_bridge_duplicates_suppressed_total",
                "Messages acknowledged without a send: their eventId was forwarded before.",
                figures.duplicates);
    out.counter("outpost_bridge_gateway_paced_total",
                "Messages deferred because their gateway was over "
                "limits.max_messages_per_s_per_gateway: acknowledged, neither sent nor "
                "confirmed; the gateway publishes them again after its receipt timeout.",
                figures.paced);
    out.counter("outpost_bridge_batches_total",
                "RocketMQ batches stored with SEND_OK (batch.max_messages > 1).",
                figures.batches);
    out.counter("outpost_bridge_batched_messages_total",
                "Messages stored in those batches; divided by the batches: the mean batch "
                "size.",
                figures.batched);

    out.family("outpost_bridge_quarantined_total", "counter",
               "Messages sent to the quarantine topic, by reason.");
    for (const QuarantineReason reason : kAllReasons) {
        const auto found = figures.quarantined.find(quarantine_reason_name(reason));
        out.sample("outpost_bridge_quarantined_total",
                   PrometheusText::labels({{"reason", quarantine_reason_name(reason)}}),
                   found == figures.quarantined.end() ? 0 : found->second);
    }

    out.family("outpost_bridge_rocketmq_errors_total", "counter",
               "Failed RocketMQ sends (each attempt), by the response code RocketMQ answered "
               "with; code=\"none\" when no answer came (name: unavailable, timeout, ...).");
    for (const auto& [key, count] : figures.rocketmq_errors) {
        const RocketMqErrorLabel label = RocketMqErrorLabel::from_key(key);
        out.sample("outpost_bridge_rocketmq_errors_total",
                   PrometheusText::labels({{"code", label.code}, {"name", label.name}}), count);
    }

    render_latency(out, "outpost_bridge_send_latency_seconds",
                   "Time from a message's first RocketMQ send to its SEND_OK, retries included.",
                   figures.send_latency);
    render_latency(out, "outpost_bridge_wait_latency_seconds",
                   "Time from a message's arrival from MQTT to its first RocketMQ send: a batch's "
                   "linger and the requests sent before its own.",
                   figures.wait_latency);

    out.family("outpost_bridge_mqtt_connected", "gauge",
               "1 while the MQTT session with this client id is connected.");
    for (const auto& [client_id, connected] : figures.mqtt_sessions) {
        out.sample("outpost_bridge_mqtt_connected",
                   PrometheusText::labels({{"client_id", client_id}}), connected ? 1 : 0);
    }
    out.family("outpost_bridge_tls_verify_disabled", "gauge",
               "1 when this leg accepts any server certificate (mqtt.tls.verify_server false, "
               "rocketmq.tls.insecure_skip_verify true).");
    for (const char* leg : {"mqtt", "rocketmq"}) {
        const bool off = std::find(figures.tls_verify_disabled.begin(),
                                   figures.tls_verify_disabled.end(),
                                   leg) != figures.tls_verify_disabled.end();
        out.sample("outpost_bridge_tls_verify_disabled", PrometheusText::labels({{"leg", leg}}),
                   off ? 1 : 0);
    }
    if (!figures.rocketmq_brokers.empty()) {  // broker_durability_watch.h
        out.family("outpost_bridge_rocketmq_broker_durable", "gauge",
                   "1 when this RocketMQ broker answers SEND_OK only after an fsync "
                   "(SYNC_FLUSH) or a slave's copy (SYNC_MASTER, inSyncReplicas >= 2); 0 when "
                   "not; -1 when unknown (its configuration could not be read or judged).");
        for (const rocketmq::BrokerReport& report : figures.rocketmq_brokers) {
            const rocketmq::Durability verdict = report.durability.verdict;
            out.sample("outpost_bridge_rocketmq_broker_durable",
                       PrometheusText::labels({{"broker", report.broker_name}}),
                       verdict == rocketmq::Durability::kDurable      ? 1
                       : verdict == rocketmq::Durability::kNotDurable ? 0
                                                                      : -1);
        }
    }
    out.counter("outpost_bridge_mqtt_connects_total", "Successful MQTT connects, all sessions.",
                figures.mqtt_connects);

    out.gauge("outpost_bridge_holding",
              "1 while a message is held unacknowledged because RocketMQ fails.",
              figures.holding ? 1 : 0);
    out.seconds_gauge("outpost_bridge_held_longest_seconds",
                      "Longest time one message was held while RocketMQ failed.",
                      figures.held_ms_max);
    out.gauge("outpost_bridge_in_hand",
              "Messages received and not yet forwarded, quarantined or suppressed.",
              figures.in_hand());
    if (!figures.retired_sessions.empty()) {  // mqtt.retired_sessions
        std::map<RetiredState, std::size_t> in_state;
        for (const auto& [client_id, state] : figures.retired_sessions) ++in_state[state];
        out.family("outpost_bridge_retired_sessions", "gauge",
                   "Retired MQTT sessions (mqtt.retired_sessions) by state: waiting, draining, "
                   "drained (ended at the next start) or ended.");
        for (const RetiredState state : kAllRetiredStates) {
            out.sample("outpost_bridge_retired_sessions",
                       PrometheusText::labels({{"state", retired_state_name(state)}}),
                       in_state[state]);
        }
    }
    if (!figures.process_pids.empty()) {  // session processes (session_processes.h)
        out.counter("outpost_bridge_session_process_restarts_total",
                    "Session processes started again after one ended.", figures.process_restarts);
    }
    return out.text();
}

}  // namespace outpost::bridge
