// One MQTT message as the bridge sees it, detached from paho.
#ifndef OUTPOST_BRIDGE_MQTT_INBOUND_MESSAGE_H
#define OUTPOST_BRIDGE_MQTT_INBOUND_MESSAGE_H

#include <chrono>
#include <string>

namespace outpost::bridge {

struct InboundMessage {
    std::string topic;
    std::string payload;
    // MQTT DUP flag: the broker sent this before and saw no PUBACK.
    bool redelivered = false;
    // When the session took it from MQTT; the epoch when unknown (then the
    // forward latency counts from the send).
    std::chrono::steady_clock::time_point received_at{};
};

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_MQTT_INBOUND_MESSAGE_H
