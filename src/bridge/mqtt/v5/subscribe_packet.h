// SUBSCRIBE out and SUBACK in (OASIS MQTT 5.0, 3.8 and 3.9). A filter may be
// a Shared Subscription ("$share/GROUP/FILTER", 4.8.2): the broker then
// hands each message to one member of the group.
#ifndef OUTPOST_BRIDGE_MQTT_V5_SUBSCRIBE_PACKET_H
#define OUTPOST_BRIDGE_MQTT_V5_SUBSCRIBE_PACKET_H

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bridge/mqtt/v5/packet_types.h"
#include "bridge/mqtt/v5/properties.h"

namespace outpost::bridge::mqtt5 {

struct Subscription {
    std::string filter;
    uint8_t maximum_qos = 1;  // 0 or 1: this subscriber has no QoS 2 path
};

// The SUBSCRIBE packet, or empty with *why naming the filter that cannot be
// sent: empty, not valid MQTT UTF-8, a misplaced wildcard, a malformed
// $share/GROUP/FILTER, QoS above 1. No subscriptions at all is refused too.
std::optional<std::string> encode_subscribe(uint16_t packet_id,
                                            const std::vector<Subscription>& subscriptions,
                                            std::string* why);

struct Suback {
    uint16_t packet_id = 0;
    std::vector<uint8_t> reason_codes;  // one per filter, in order
    Properties properties;
};

PacketCheck decode_suback(uint8_t flags, std::string_view body, Suback* out);

}  // namespace outpost::bridge::mqtt5

#endif  // OUTPOST_BRIDGE_MQTT_V5_SUBSCRIBE_PACKET_H
