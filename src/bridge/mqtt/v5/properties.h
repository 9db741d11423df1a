// The Properties block of the packets a subscriber receives (OASIS MQTT 5.0,
// 2.2.2): CONNACK, PUBLISH, SUBACK, DISCONNECT. Decoding checks what the
// specification makes an error:
//  - an identifier MQTT does not define, or one not allowed in this packet
//    type (Malformed Packet);
//  - a property other than User Property and Subscription Identifier given
//    twice (Protocol Error);
//  - values outside their range (Receive Maximum 0, Maximum Packet Size 0,
//    a byte flag other than 0 or 1, Subscription Identifier 0).
// Unused properties are kept only as far as a caller needs them.
#ifndef OUTPOST_BRIDGE_MQTT_V5_PROPERTIES_H
#define OUTPOST_BRIDGE_MQTT_V5_PROPERTIES_H

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bridge/mqtt/v5/wire_reader.h"

namespace outpost::bridge::mqtt5 {

// The packet types whose properties decode_properties accepts.
enum class PropertyContext { kConnack, kPublish, kSuback, kDisconnect };

struct Properties {
    // PUBLISH
    std::optional<uint8_t> payload_format_indicator;  // 0x01
    std::optional<uint32_t> message_expiry_interval;  // 0x02
    std::optional<std::string> content_type;          // 0x03
    std::optional<std::string> response_topic;        // 0x08
    std::optional<std::string> correlation_data;      // 0x09
    std::vector<uint32_t> subscription_identifiers;   // 0x0B
    std::optional<uint16_t> topic_alias;              // 0x23
    // CONNACK (and DISCONNECT where noted)
    std::optional<uint32_t> session_expiry_interval;            // 0x11, also DISCONNECT
    std::optional<std::string> assigned_client_identifier;      // 0x12
    std::optional<uint16_t> server_keep_alive;                  // 0x13
    std::optional<std::string> authentication_method;           // 0x15
    std::optional<std::string> response_information;            // 0x1A
    std::optional<std::string> server_reference;                // 0x1C, also DISCONNECT
    std::optional<uint16_t> receive_maximum;                    // 0x21
    std::optional<uint16_t> topic_alias_maximum;                // 0x22
    std::optional<uint8_t> maximum_qos;                         // 0x24
    std::optional<uint8_t> retain_available;                    // 0x25
    std::optional<uint32_t> maximum_packet_size;                // 0x27
    std::optional<uint8_t> wildcard_subscription_available;     // 0x28
    std::optional<uint8_t> subscription_identifiers_available;  // 0x29
    std::optional<uint8_t> shared_subscription_available;       // 0x2A
    // Every packet here
    std::optional<std::string> reason_string;                          // 0x1F
    std::vector<std::pair<std::string, std::string>> user_properties;  // 0x26
};

// Reads a Property Length and the properties it covers from `reader` into
// *out. On an error the reader has failed (reader->error() says which
// property and why) and *out is partly filled.
void decode_properties(WireReader* reader, PropertyContext context, Properties* out);

}  // namespace outpost::bridge::mqtt5

#endif  // OUTPOST_BRIDGE_MQTT_V5_PROPERTIES_H
