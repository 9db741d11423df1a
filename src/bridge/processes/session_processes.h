// outpost-bridge with mqtt.sessions N > 1: the bridge process supervises N
// session processes, each running exactly one MQTT session of the shared
// group with its own paho (so its own receive thread), its own RocketMQ
// producer, Delivery, duplicate cache and receipt connection.
//
// Why processes: paho C (MQTTAsync 1.3.x) has one receive thread per
// process for all its clients, and the message callback, where a message
// waits for its own SEND_OK before returning (the return sends PUBACK),
// runs on it. N sessions in one process therefore take messages one at a
// time; N processes take them N at a time (docs/DESIGN.md, Bridge,
// "Session processes").
//
// The contract:
//  - Session process i runs `outpost-bridge --config FILE --session i
//    --stats-fd 3` (session_child.h): the same binary and configuration
//    file, client id session_client_id(client_id, i) so each keeps its
//    persistent session across restarts, receipt client id
//    "<that id>-receipts" (distinct per process).
//  - Spawning, restarting with the one backoff (mqtt.reconnect_min_ms ..
//    reconnect_max_ms), PR_SET_PDEATHSIG and stopping are
//    common/child_supervisor.h's. A process that dies (crash, SIGKILL) is
//    started again; what it held unacknowledged the broker redelivers (to it
//    or to another session of the group), so nothing acknowledged was unsent
//    and nothing is lost.
//  - figures() sums every process over all its lives (counters only grow);
//    what a dead life had received and not settled counts as `abandoned`
//    (it is received again) and leaves in_hand. mqtt_sessions keeps one
//    entry per client id, false while its process is down. lanes() gives
//    each session's own figures, for the per-process stall rule.
//  - stop(): SIGTERM to every process at once; each stops as a
//    single-session bridge does (a message held for RocketMQ stays
//    unacknowledged); SIGKILL after the longest such stop.
#ifndef OUTPOST_BRIDGE_PROCESSES_SESSION_PROCESSES_H
#define OUTPOST_BRIDGE_PROCESSES_SESSION_PROCESSES_H

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "bridge/config.h"
#include "bridge/ops/bridge_stats.h"
#include "common/child_supervisor.h"
#include "outpost/status.h"

namespace outpost::bridge {

class SessionProcesses final : public FiguresSource {
  public:
    // Starts config.mqtt.sessions processes of `program` with `config_path`
    // and waits until each reported once. Errors (nothing left running):
    // those of ChildSupervisor::start for the first process that failed.
    static Result<std::unique_ptr<SessionProcesses>> start(const BridgeConfig& config,
                                                           const std::string& program,
                                                           const std::string& config_path);

    ~SessionProcesses() override;  // stop()
    SessionProcesses(const SessionProcesses&) = delete;
    SessionProcesses& operator=(const SessionProcesses&) = delete;

    BridgeFigures figures() const override;
    std::vector<BridgeFigures> lanes() const override;
    // Every session process runs and its MQTT session is connected.
    bool all_connected() const;

    // Stops every process (see above). Idempotent.
    void stop();

  private:
    struct Lane {
        std::string client_id;
        BridgeFigures ended;    // lives that ended, summed
        BridgeFigures current;  // this life's last report
    };

    SessionProcesses();
    bool take_report(std::size_t lane, std::string_view line);
    void life_ended(std::size_t lane);
    BridgeFigures lane_figures(const Lane& lane) const;

    const std::chrono::steady_clock::time_point started_;
    std::vector<std::unique_ptr<ChildSupervisor>> children_;  // set before start() returns
    mutable std::mutex mutex_;
    std::vector<Lane> lanes_;  // guarded by mutex_; its size is fixed before any child starts
};

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_PROCESSES_SESSION_PROCESSES_H
