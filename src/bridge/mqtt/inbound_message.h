// One MQTT message as the bridge sees it, detached from paho.
#ifndef OUTPOST_BRIDGE_MQTT_INBOUND_MESSAGE_H
#define OUTPOST_BRIDGE_MQTT_INBOUND_MESSAGE_H

#include <string>

namespace outpost::bridge {

struct InboundMessage {
    std::string topic;
    std::string payload;
    // MQTT DUP flag: the broker sent this before and saw no PUBACK.
    bool redelivered = false;
};

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_MQTT_INBOUND_MESSAGE_H
