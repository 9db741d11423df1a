// CONNECT out and CONNACK in (OASIS MQTT 5.0, 3.1 and 3.2), for a
// subscriber that keeps its session: Clean Start as asked, Session Expiry
// Interval, Receive Maximum, Maximum Packet Size, Topic Alias Maximum, user
// name and password. No Will, no enhanced authentication (AUTH).
#ifndef OUTPOST_BRIDGE_MQTT_V5_CONNECT_PACKET_H
#define OUTPOST_BRIDGE_MQTT_V5_CONNECT_PACKET_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "bridge/mqtt/v5/packet_types.h"
#include "bridge/mqtt/v5/properties.h"

namespace outpost::bridge::mqtt5 {

struct ConnectFields {
    std::string client_id;
    bool clean_start = false;
    uint16_t keep_alive_seconds = 30;
    uint32_t session_expiry_interval = 0;
    uint16_t receive_maximum = 65535;
    uint32_t maximum_packet_size = 0;  // 0: the property is left out (no limit)
    uint16_t topic_alias_maximum = 0;
    std::optional<std::string> user_name;
    std::optional<std::string> password;
};

// The CONNECT packet, or empty with *why naming a field that cannot be sent
// (a string that is not valid MQTT UTF-8 or longer than 65,535 bytes,
// Receive Maximum 0).
std::optional<std::string> encode_connect(const ConnectFields& fields, std::string* why);

struct Connack {
    bool session_present = false;
    uint8_t reason_code = 0;
    Properties properties;
};

// Decodes a CONNACK body; `flags` are the low four bits of its first byte.
PacketCheck decode_connack(uint8_t flags, std::string_view body, Connack* out);

}  // namespace outpost::bridge::mqtt5

#endif  // OUTPOST_BRIDGE_MQTT_V5_CONNECT_PACKET_H
