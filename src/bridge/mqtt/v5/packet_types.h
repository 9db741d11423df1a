// MQTT v5 Control Packet types (OASIS MQTT 5.0, 2.1.2) and the error a
// decoder reports: which Reason Code the subscriber's DISCONNECT carries
// and what was wrong.
#ifndef OUTPOST_BRIDGE_MQTT_V5_PACKET_TYPES_H
#define OUTPOST_BRIDGE_MQTT_V5_PACKET_TYPES_H

#include <cstdint>
#include <optional>
#include <string>

namespace outpost::bridge::mqtt5 {

enum PacketType : uint8_t {
    kConnect = 1,
    kConnack = 2,
    kPublish = 3,
    kPuback = 4,
    kPubrec = 5,
    kPubrel = 6,
    kPubcomp = 7,
    kSubscribe = 8,
    kSuback = 9,
    kUnsubscribe = 10,
    kUnsuback = 11,
    kPingreq = 12,
    kPingresp = 13,
    kDisconnect = 14,
    kAuth = 15,
};

// A received packet that breaks the specification.
struct PacketError {
    uint8_t reason_code;  // kMalformedPacket, kProtocolError, ... (reason_codes.h)
    std::string message;  // "PUBLISH topic name: U+0000 at byte 3"
};

// Empty when the packet was fine.
using PacketCheck = std::optional<PacketError>;

}  // namespace outpost::bridge::mqtt5

#endif  // OUTPOST_BRIDGE_MQTT_V5_PACKET_TYPES_H
