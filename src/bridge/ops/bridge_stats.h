// The bridge's counters and health, shared between the MQTT callback thread
// (which records) and the status reporter (which snapshots). Thread-safe.
//
// The JSON form (one line, stable field names; counters since start):
//   {"ts_ms":..., "uptime_s":..., "mqtt_connected":true, "mqtt_connects":1,
//    "received":120, "redelivered":3, "forwarded":110, "duplicates_suppressed":2,
//    "paced":0,
//    "quarantined":{"total":8,"schema_violation":5,...},
//    "rocketmq_errors":{"total":4,"16:NO_PERMISSION":1,"none:unavailable":2,
//                       "none:timeout":1},   (keys: rocketmq_error_label.h)
//    "holding":false, "held_ms_max":1234,
//    "send_latency_ms":{"count":118,"p50":1.7,"p99":9.5},
//    "forward_latency_ms":{"count":118,"p50":2.1,"p99":11.3},
//    "wait_latency_ms":{"count":118,"p50":0.4,"p99":1.8},
//    "mqtt_sessions":{"outpost-bridge-1":true},
//    "retired_sessions":{"outpost-bridge-2":"ended","outpost-bridge-3":"draining"},
//    "receipts":{"ids_offered":110,"ids_sent":110,"ids_dropped":0,
//                "messages_sent":3,"messages_failed":0,"acked":3,"ack_failed":0,
//                "rejections_offered":1},
//    "rocketmq_refused":"..."}   (only once RocketMQ refused our identity)
// "receipts" appears only when receipts are on.
// "session_processes":{"restarts":0,"pids":[..]} appears only in a bridge
// whose sessions run in processes of their own (session_processes.h); its
// counters are the sums over all of them and all their lives.
// "retired_sessions" appears only in a process that runs retired sessions
// (mqtt.retired_sessions; RetiredState below).
// "tls_verify_disabled":["mqtt"] appears only when a leg accepts any
// server certificate (mqtt.tls.verify_server false,
// rocketmq.tls.insecure_skip_verify true).
// "rocketmq_brokers":{"broker-a":{"address":"10.0.0.5:10911",
//    "flushDiskType":"ASYNC_FLUSH","brokerRole":"ASYNC_MASTER","inSyncReplicas":"1",
//    "durable":"not_durable","reason":"..."}} appears once the brokers were
// surveyed (broker_durability_watch.h); durable: durable, not_durable or
// unknown (flushDiskType and the rest then empty, reason says why).
// "holding" is true while a message waits inside the callback for RocketMQ.
// "mqtt_connected" is true while every MQTT session is connected;
// "mqtt_sessions" tells them apart by client id.
#ifndef OUTPOST_BRIDGE_OPS_BRIDGE_STATS_H
#define OUTPOST_BRIDGE_OPS_BRIDGE_STATS_H

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bridge/ops/latency_histogram.h"
#include "bridge/quarantine_reason.h"
#include "outpost/status.h"
#include "rocketmq/broker_durability.h"

namespace outpost::bridge {

// Receipts: what the receipt batcher and sender counted.
struct ReceiptFigures {
    std::int64_t ids_offered = 0, ids_sent = 0, ids_dropped = 0;
    std::int64_t messages_sent = 0, messages_failed = 0, acked = 0, ack_failed = 0;
    std::int64_t rejections_offered = 0;  // negative receipts (quarantined events answered)
};

// Where a retired session (bridge/mqtt/retired_session.h) is, so that an
// operator who lowered mqtt.sessions can see when the sessions left behind
// at the broker are gone, and which one is stuck.
enum class RetiredState {
    kWaiting,   // not connected (yet, or again after a loss): nothing known
    kDraining,  // connected to its session at the broker, forwarding what it held
    kDrained,   // empty and out of the group, but ending it failed: the next start ends it
    kEnded,     // no session left at the broker for this client id
};
inline constexpr RetiredState kAllRetiredStates[] = {
    RetiredState::kWaiting, RetiredState::kDraining, RetiredState::kDrained, RetiredState::kEnded};
// "waiting", "draining", "drained", "ended": the status line's and the
// metrics' name of `state`.
const char* retired_state_name(RetiredState state);
// The state named `name`; nullopt for any other text.
std::optional<RetiredState> parse_retired_state(std::string_view name);
// Each client id's state by its name: how the status line and a session
// process's figures line write retired_sessions.
std::map<std::string, std::string> retired_state_names(
    const std::map<std::string, RetiredState>& states);

// A consistent copy of every figure, for the status line, the metrics
// endpoint and the watchdog (FiguresSource::figures()).
struct BridgeFigures {
    std::chrono::steady_clock::duration uptime{};
    std::uint64_t received = 0;
    std::uint64_t redelivered = 0;
    std::uint64_t forwarded = 0;
    std::uint64_t duplicates = 0;
    // Deferred: their gateway was over limits.max_messages_per_s_per_gateway
    // (acknowledged, neither sent nor confirmed; the gateway publishes again).
    std::uint64_t paced = 0;
    // RocketMQ batches stored (batch.max_messages > 1) and the messages in
    // them; batched / batches is the mean batch size.
    std::uint64_t batches = 0;
    std::uint64_t batched = 0;
    std::uint64_t quarantined_total = 0;
    std::map<std::string, std::uint64_t> quarantined;  // by quarantine reason name
    std::uint64_t rocketmq_errors_total = 0;
    std::map<std::string, std::uint64_t> rocketmq_errors;  // by RocketMqErrorLabel::key()
    bool holding = false;
    std::int64_t held_ms_max = 0;
    std::uint64_t mqtt_connects = 0;
    std::map<std::string, bool> mqtt_sessions;  // client id -> connected
    std::map<std::string, RetiredState> retired_sessions;  // retired client id -> state
    LatencyHistogram send_latency;
    LatencyHistogram forward_latency;  // arrival from MQTT to SEND_OK
    LatencyHistogram wait_latency;     // arrival from MQTT to the first send
    std::string rocketmq_refused;            // empty unless RocketMQ refused our identity
    std::optional<ReceiptFigures> receipts;  // only when receipts are on
    // Session processes (session_processes.h) only: received by a process
    // that died before settling them (the broker redelivers them, and they
    // are received again), restarts, and the running pids (-1: down).
    std::uint64_t abandoned = 0;
    std::uint64_t process_restarts = 0;
    std::vector<long> process_pids;
    // The legs ("mqtt", "rocketmq") whose server certificate is not
    // verified, from the configuration (weakened_security.h).
    std::vector<std::string> tls_verify_disabled;
    // The RocketMQ brokers written to and whether their SEND_OK is durable,
    // from the latest survey (broker_durability_watch.h); empty before the
    // first one and in a session process (its supervisor surveys).
    std::vector<rocketmq::BrokerReport> rocketmq_brokers;

    // Messages the bridge is done with: forwarded, quarantined, suppressed,
    // or paced (the gateway's republish is a message of its own).
    std::uint64_t settled() const { return forwarded + quarantined_total + duplicates + paced; }
    // Received and neither settled nor abandoned: the watchdog's "work pending".
    std::uint64_t in_hand() const {
        const std::uint64_t done = settled() + abandoned;
        return received > done ? received - done : 0;
    }
};

// The figures as one JSON line (no trailing newline), see above.
std::string figures_json_line(const BridgeFigures& figures);

// Where the status reporter, the metrics endpoint and the watchdog read the
// figures: BridgeStats in a process that forwards, the session processes'
// totals in their supervisor. Thread-safe.
class FiguresSource {
  public:
    virtual ~FiguresSource() = default;
    // The totals.
    virtual BridgeFigures figures() const = 0;
    // One entry per process that forwards, each with its own counters: the
    // stall rule (stall_detector.h) applies to each, so that one stuck
    // process is not hidden by the others' progress.
    virtual std::vector<BridgeFigures> lanes() const { return {figures()}; }
};

class BridgeStats final : public FiguresSource {
  public:
    BridgeStats();

    void message_received(bool redelivered);
    // `send_latency`: the RocketMQ request that stored it (a batch's, for
    // each of its messages), from its first attempt; `forward_latency`:
    // from its arrival from MQTT, so a batch's linger and the wait behind
    // earlier requests count too; `wait_latency`: from its arrival to the
    // first attempt, the part before RocketMQ has it (forward = wait + send).
    void message_forwarded(std::chrono::microseconds send_latency,
                           std::chrono::microseconds forward_latency,
                           std::chrono::microseconds wait_latency);
    void message_quarantined(QuarantineReason reason);
    void duplicate_suppressed();
    void message_paced();
    // A batch of `messages` stored with SEND_OK (each also counted forwarded).
    void batch_forwarded(std::size_t messages);
    // A failed RocketMQ send, counted by its label (rocketmq_error_label.h):
    // the response code RocketMQ answered with, or none (`code` then names
    // the failure).
    void rocketmq_error(StatusCode code, std::optional<std::int32_t> response_code);
    void holding(bool held, std::chrono::milliseconds held_for);
    // RocketMQ refused the bridge's credentials, rights or certificate trust;
    // `why` is shown in the status line from now on.
    void rocketmq_refused(const std::string& why);
    // One MQTT session (by its client id) connected or lost.
    void mqtt_connected(const std::string& client_id, bool connected);
    // A retired session (by its client id) moved to `state`.
    void retired_session(const std::string& client_id, RetiredState state);

    // Receipts: where to read the receipt figures for the JSON
    // line. Set once, before the status reporter starts; read afterwards
    // without the lock, so whatever `source` reads must outlive every reader
    // of these figures (reporter, metrics endpoint, watchdog, figures pipe).
    using ReceiptFigures = bridge::ReceiptFigures;
    void set_receipt_source(std::function<ReceiptFigures()> source) {
        receipt_source_ = std::move(source);
    }

    std::uint64_t forwarded() const;
    std::uint64_t quarantined() const;
    BridgeFigures figures() const override;

    // figures_json_line(figures()).
    std::string to_json_line() const { return figures_json_line(figures()); }

  private:
    const std::chrono::steady_clock::time_point started_;
    mutable std::mutex mutex_;
    std::uint64_t received_ = 0;                        // guarded by mutex_
    std::uint64_t redelivered_ = 0;                     // guarded by mutex_
    std::uint64_t forwarded_ = 0;                       // guarded by mutex_
    std::uint64_t duplicates_ = 0;                      // guarded by mutex_
    std::uint64_t paced_ = 0;                           // guarded by mutex_
    std::uint64_t batches_ = 0;                         // guarded by mutex_
    std::uint64_t batched_ = 0;                         // guarded by mutex_
    std::uint64_t quarantined_total_ = 0;               // guarded by mutex_
    std::map<std::string, std::uint64_t> quarantined_;  // guarded by mutex_
    std::uint64_t errors_total_ = 0;                    // guarded by mutex_
    std::map<std::string, std::uint64_t> errors_;       // guarded by mutex_
    bool holding_ = false;                              // guarded by mutex_
    std::int64_t held_ms_max_ = 0;                      // guarded by mutex_
    std::string refused_;                               // guarded by mutex_
    std::map<std::string, bool> sessions_;              // guarded by mutex_
    std::map<std::string, RetiredState> retired_;       // guarded by mutex_
    std::uint64_t connects_ = 0;                        // guarded by mutex_
    LatencyHistogram latency_;                          // guarded by mutex_
    LatencyHistogram forward_latency_;                  // guarded by mutex_
    LatencyHistogram wait_latency_;                     // guarded by mutex_
    std::function<ReceiptFigures()> receipt_source_;    // set before readers start
};

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_OPS_BRIDGE_STATS_H
