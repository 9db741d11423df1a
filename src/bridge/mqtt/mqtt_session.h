// The bridge's MQTT side: one paho async client in a persistent MQTT v5
// session on a shared subscription, whose message callback runs Delivery
// and so acknowledges a message only after RocketMQ stored it. The design
// note (why this is safe, what happens in outages and at shutdown) is at
// the top of mqtt_session.cpp. Paho's types stay inside that file.
#ifndef OUTPOST_BRIDGE_MQTT_MQTT_SESSION_H
#define OUTPOST_BRIDGE_MQTT_MQTT_SESSION_H

#include <chrono>
#include <memory>

#include "bridge/config.h"
#include "bridge/delivery.h"
#include "bridge/ops/bridge_stats.h"
#include "bridge/stop_signal.h"
#include "outpost/status.h"

namespace outpost::bridge {

// How run() ended.
enum class SessionEnd {
    // Stop requested; nothing was held; the client disconnected cleanly.
    kClean,
    // Stop requested while a message waited for RocketMQ (or the callback
    // could not finish): that message is NOT acknowledged and the paho
    // callback thread is parked on it for good. The process must end without
    // destroying the session (std::_Exit): the socket closes unacknowledged
    // and the broker redelivers to the next session.
    kHeldUnacknowledged,
    // A bug surfaced inside the callback (an exception). As for
    // kHeldUnacknowledged, plus the process should exit with an error.
    kFatal,
};

class MqttSession {
  public:
    virtual ~MqttSession() = default;

    // Connects, subscribes, and reconnects after every loss with capped,
    // jittered backoff, until `stop` is requested (then it disconnects) or
    // the callback fails. Blocks the calling thread; call once.
    virtual SessionEnd run() = 0;
};

// What a session is for.
enum class SessionRole {
    // One of the mqtt.sessions of the group: subscribed, runs until the stop.
    kLive,
    // A client id of mqtt.retired_sessions (config.h): run() connects it
    // with clean_start=false; without a session at the broker it disconnects
    // at once, else it UNSUBSCRIBEs (no new messages join its queue),
    // forwards what the session held exactly as a live session does, and
    // once nothing arrived for kRetiredQuiet (counted while paho's receive
    // thread was not inside any callback) with nothing in hand it ends
    // the session (reconnects with clean start and Session Expiry 0) and
    // returns kClean without a stop. Stopped before that, the session stays
    // (unsubscribed) and the next start drains it again. It never touches
    // the mqtt_connected figures (those are the live sessions'); it reports
    // its RetiredState (bridge_stats.h) instead.
    kRetired,
};

// How long a retired session must be quiet before it is ended. The broker
// sends a session's queued messages as soon as the connection is up and
// the next one as each is acknowledged, so a gap this long means empty.
constexpr std::chrono::seconds kRetiredQuiet{2};

// Creates the client (MQTT v5, no client-side persistence) and registers
// its callbacks; does not connect. `config` is copied; `delivery`, `stats`
// and `stop` are borrowed and must outlive the session. Errors: kInvalidArgument when
// paho refuses the URI or client id.
Result<std::unique_ptr<MqttSession>> make_mqtt_session(const BridgeConfig& config,
                                                       Delivery& delivery, BridgeStats& stats,
                                                       const StopSignal& stop,
                                                       SessionRole role = SessionRole::kLive);

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_MQTT_MQTT_SESSION_H
