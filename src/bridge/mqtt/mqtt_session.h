// The bridge's MQTT side: a persistent MQTT v5 session on a shared
// subscription that acknowledges a message only after RocketMQ stored it.
// Two kinds: a batched session (batched_session.h, batch.max_messages > 1
// on tcp://) and a paho session, whose message callback runs Delivery. The design
// note (why this is safe, what happens in outages and at shutdown) is at
// the top of mqtt_session.cpp. Paho's types stay inside the session's own
// files (paho_session.h and the .cpp files that include it).
#ifndef OUTPOST_BRIDGE_MQTT_MQTT_SESSION_H
#define OUTPOST_BRIDGE_MQTT_MQTT_SESSION_H

#include <memory>
#include <string>
#include <vector>

#include "bridge/config.h"
#include "bridge/delivery.h"
#include "bridge/ops/bridge_stats.h"
#include "bridge/stop_signal.h"
#include "common/backoff.h"
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

// The pauses between a session's connection attempts: capped doubling from
// mqtt.reconnect_min_ms to reconnect_max_ms, jittered so a fleet of bridges
// does not reconnect in lockstep. Every kind of session uses this one.
Backoff session_reconnect_backoff(const MqttConfig& mqtt);

// The group's filters as a live session subscribes to them:
// $share/<mqtt.shared_group>/<filter>.
std::vector<std::string> shared_filters(const MqttConfig& mqtt);

// A live session: one of the mqtt.sessions of the group, subscribed to the
// shared subscription, running until the stop (a retired one is
// retired_session.h's). With uses_batched_path(config) a BatchedSession
// (batched_session.h), else a paho session: creates the client (MQTT v5,
// no client-side persistence) and registers its callbacks; does not connect. `config` is
// copied; `delivery`, `stats` and `stop` are borrowed and must outlive the
// session. Errors: kInvalidArgument when paho refuses the URI or client id.
Result<std::unique_ptr<MqttSession>> make_mqtt_session(const BridgeConfig& config,
                                                       Delivery& delivery, BridgeStats& stats,
                                                       const StopSignal& stop);

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_MQTT_MQTT_SESSION_H
