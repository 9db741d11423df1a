// PUBLISH in and PUBACK out (OASIS MQTT 5.0, 3.3 and 3.4), for QoS 0 and 1.
#ifndef OUTPOST_BRIDGE_MQTT_V5_PUBLISH_PACKET_H
#define OUTPOST_BRIDGE_MQTT_V5_PUBLISH_PACKET_H

#include <cstdint>
#include <string>
#include <string_view>

#include "bridge/mqtt/v5/packet_types.h"
#include "bridge/mqtt/v5/properties.h"

namespace outpost::bridge::mqtt5 {

struct Publish {
    bool dup = false;
    uint8_t qos = 0;
    bool retain = false;
    // As carried: empty when the broker sent only a Topic Alias
    // (properties.topic_alias); TopicAliases resolves it.
    std::string topic;
    uint16_t packet_id = 0;  // 0 for QoS 0
    Properties properties;
    std::string payload;
};

// Decodes a PUBLISH; `flags` are the low four bits of its first byte.
// Errors: QoS 3, a packet identifier of 0, a topic name that is not valid
// MQTT UTF-8 (Malformed Packet); DUP on QoS 0, a wildcard in the topic name,
// QoS 2 (this subscriber never asks for it) (Protocol Error).
PacketCheck decode_publish(uint8_t flags, std::string_view body, Publish* out);

// Appends the PUBACK for `packet_id` with reason Success (the two byte form
// 3.4.2.1 allows: no reason code, no properties).
void append_puback(uint16_t packet_id, std::string* out);

}  // namespace outpost::bridge::mqtt5

#endif  // OUTPOST_BRIDGE_MQTT_V5_PUBLISH_PACKET_H
