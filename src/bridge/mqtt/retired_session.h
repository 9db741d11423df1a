// A retired session: a client id of mqtt.retired_sessions (config.h), one
// the group no longer uses, whose broker session may still hold messages.
// run() connects it with clean_start=false; without a session at the broker
// it disconnects at once, else it UNSUBSCRIBEs (no new messages join its
// queue), forwards what the session held exactly as a live session does
// (the same callback: mqtt_session.cpp, invariants 1 to 3), and once
// nothing arrived for kRetiredQuiet (counted while paho's receive thread
// was not inside any callback) with nothing in hand it ends the session
// (reconnects with clean start and Session Expiry 0) and returns kClean
// without a stop. Stopped before that, the session stays (unsubscribed)
// and the next start drains it again. It never touches the mqtt_connected
// figures (those are the live sessions'); it reports its RetiredState
// (bridge_stats.h) instead. The rule is invariant 7 of mqtt_session.cpp.
#ifndef OUTPOST_BRIDGE_MQTT_RETIRED_SESSION_H
#define OUTPOST_BRIDGE_MQTT_RETIRED_SESSION_H

#include <chrono>
#include <memory>

#include "bridge/config.h"
#include "bridge/delivery.h"
#include "bridge/mqtt/mqtt_session.h"
#include "bridge/ops/bridge_stats.h"
#include "bridge/stop_signal.h"
#include "outpost/status.h"

namespace outpost::bridge {

// How long a retired session must be quiet before it is ended. The broker
// sends a session's queued messages as soon as the connection is up and
// the next one as each is acknowledged, so a gap this long means empty.
constexpr std::chrono::seconds kRetiredQuiet{2};

// Creates the retired session of config.mqtt.endpoint.client_id, as
// make_mqtt_session creates a live one (same borrowing, same errors), and
// reports it RetiredState::kWaiting; does not connect.
Result<std::unique_ptr<MqttSession>> make_retired_session(const BridgeConfig& config,
                                                          Delivery& delivery, BridgeStats& stats,
                                                          const StopSignal& stop);

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_MQTT_RETIRED_SESSION_H
