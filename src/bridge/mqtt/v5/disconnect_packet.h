// DISCONNECT both ways and PINGREQ (OASIS MQTT 5.0, 3.14 and 3.12).
#ifndef OUTPOST_BRIDGE_MQTT_V5_DISCONNECT_PACKET_H
#define OUTPOST_BRIDGE_MQTT_V5_DISCONNECT_PACKET_H

#include <cstdint>
#include <string>
#include <string_view>

#include "bridge/mqtt/v5/packet_types.h"
#include "bridge/mqtt/v5/properties.h"

namespace outpost::bridge::mqtt5 {

// DISCONNECT with `reason_code` and no properties (so the session keeps the
// Session Expiry Interval given at CONNECT).
std::string encode_disconnect(uint8_t reason_code);

// PINGREQ: two bytes, no body.
std::string encode_pingreq();

struct Disconnect {
    uint8_t reason_code = 0;  // 0 when the broker sent the empty form
    Properties properties;
};

PacketCheck decode_disconnect(uint8_t flags, std::string_view body, Disconnect* out);

}  // namespace outpost::bridge::mqtt5

#endif  // OUTPOST_BRIDGE_MQTT_V5_DISCONNECT_PACKET_H
