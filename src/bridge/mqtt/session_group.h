// The MQTT sessions of one bridge instance: mqtt.sessions persistent
// sessions in the same shared-subscription group, each with its own fixed
// client id (session_client_id in config.h) and its own supervisor thread,
// all calling one Delivery. Each message is acknowledged by its own session
// only after its own SEND_OK (invariants in mqtt_session.cpp). Ordering per
// device is NOT kept across sessions: docs/DESIGN.md, Bridge, "Ordering per
// device".
// LIMIT: paho C runs one receive thread per process for all clients and the
// message callbacks run on it, so these sessions deliver one message at a
// time between them (docs/DESIGN.md, Bridge, "Sessions and requests in
// flight"): more sessions add no throughput in one process today.
#ifndef OUTPOST_BRIDGE_MQTT_SESSION_GROUP_H
#define OUTPOST_BRIDGE_MQTT_SESSION_GROUP_H

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bridge/config.h"
#include "bridge/delivery.h"
#include "bridge/mqtt/mqtt_session.h"
#include "bridge/mqtt/retired_session.h"
#include "bridge/ops/bridge_stats.h"
#include "bridge/stop_signal.h"
#include "outpost/status.h"

namespace outpost::bridge {

class SessionGroup final {
  public:
    // Creates config.mqtt.sessions live sessions (make_mqtt_session) and one
    // retired session (make_retired_session) per id of `retired_ids` (each
    // drains and ends that id's broker session, then its thread ends: that
    // end is not reported to `on_end` unless it is not kClean); does not
    // connect. Same errors as make_mqtt_session. `delivery`, `stats` and `stop` are
    // borrowed and must outlive the group.
    static Result<std::unique_ptr<SessionGroup>> create(const BridgeConfig& config,
                                                        const std::vector<std::string>& retired_ids,
                                                        Delivery& delivery, BridgeStats& stats,
                                                        const StopSignal& stop);

    // Joins the session threads; call only after wait_all() saw them all end.
    ~SessionGroup();
    SessionGroup(const SessionGroup&) = delete;
    SessionGroup& operator=(const SessionGroup&) = delete;

    // Runs every session on its own thread. `on_end` is called from a
    // session thread each time one session's run() returns (after a stop, or
    // by itself when its callback parked). Call once.
    void start(std::function<void()> on_end);

    // Waits until every session ended or `deadline` passed. Returns the
    // group's end: kFatal if any session's was, else kHeldUnacknowledged if
    // any session's was, else kClean; nullopt when some session had not
    // ended by the deadline (it is blocked behind a held message: the
    // process must leave with std::_Exit, see mqtt_session.h).
    std::optional<SessionEnd> wait_all(std::chrono::steady_clock::time_point deadline);

    std::size_t size() const { return live_; }  // live sessions

  private:
    SessionGroup(std::vector<std::unique_ptr<MqttSession>> sessions, std::size_t live)
        : sessions_(std::move(sessions)), live_(live) {}

    std::vector<std::unique_ptr<MqttSession>> sessions_;  // live first, then retired
    const std::size_t live_;
    std::vector<std::thread> threads_;
    std::mutex mutex_;
    std::condition_variable ended_;
    std::vector<SessionEnd> ends_;  // guarded by mutex_; one per ended session
};

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_MQTT_SESSION_GROUP_H
