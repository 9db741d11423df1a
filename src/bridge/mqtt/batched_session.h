// A live session that forwards in RocketMQ batches (batch.max_messages > 1,
// a tcp:// or ssl:// broker): our own MQTT v5 subscriber (mqtt5::Subscriber)
// holds up to Receive Maximum messages unacknowledged; BatchGrouper groups
// the ready ones by RocketMQ topic and the queue their device maps to;
// Delivery::forward_batch sends each group (one request per queue); each
// message is acknowledged after its request's SEND_OK. The design note is
// at the top of batched_session.cpp.
//
// Threads: none of its own; run() drives everything on the calling thread
// (the session group's) and returns after a stop request within one
// RocketMQ send plus the DISCONNECT's write timeout.
#ifndef OUTPOST_BRIDGE_MQTT_BATCHED_SESSION_H
#define OUTPOST_BRIDGE_MQTT_BATCHED_SESSION_H

#include <memory>

#include "bridge/config.h"
#include "bridge/delivery.h"
#include "bridge/mqtt/mqtt_session.h"
#include "bridge/ops/bridge_stats.h"
#include "bridge/stop_signal.h"
#include "outpost/status.h"

namespace outpost::bridge {

// A batched live session for `config` (copied; uses_batched_path(config)
// must hold), its client id config.mqtt.endpoint.client_id; does not
// connect. `delivery`, `stats` and `stop` are borrowed and must outlive it.
// Errors: kInvalidArgument when mqtt.uri is not tcp://host:port.
Result<std::unique_ptr<MqttSession>> make_batched_session(const BridgeConfig& config,
                                                          Delivery& delivery, BridgeStats& stats,
                                                          const StopSignal& stop);

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_MQTT_BATCHED_SESSION_H
