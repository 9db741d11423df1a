// MQTT v5 Reason Codes (OASIS MQTT 5.0, 2.4) as names for messages, and the
// ones this subscriber sends itself.
#ifndef OUTPOST_BRIDGE_MQTT_V5_REASON_CODES_H
#define OUTPOST_BRIDGE_MQTT_V5_REASON_CODES_H

#include <cstdint>
#include <string>

namespace outpost::bridge::mqtt5 {

inline constexpr uint8_t kNormalDisconnection = 0x00;
inline constexpr uint8_t kMalformedPacket = 0x81;
inline constexpr uint8_t kProtocolError = 0x82;
inline constexpr uint8_t kKeepAliveTimeout = 0x8D;
inline constexpr uint8_t kReceiveMaximumExceeded = 0x93;
inline constexpr uint8_t kTopicAliasInvalid = 0x94;
inline constexpr uint8_t kPacketTooLarge = 0x95;

// "0x87 Not authorized"; "0xNN (unknown)" for codes MQTT does not define.
std::string reason_code_text(uint8_t code);

}  // namespace outpost::bridge::mqtt5

#endif  // OUTPOST_BRIDGE_MQTT_V5_REASON_CODES_H
