#include "bridge/mqtt/v5/publish_packet.h"

#include "bridge/mqtt/v5/reason_codes.h"

namespace outpost::bridge::mqtt5 {

PacketCheck decode_publish(uint8_t flags, std::string_view body, Publish* out) {
    out->dup = (flags & 0x08) != 0;
    out->qos = (flags >> 1) & 0x03;
    out->retain = (flags & 0x01) != 0;
    if (out->qos == 3) return PacketError{kMalformedPacket, "PUBLISH: QoS 3"};
    if (out->qos == 2) {
        return PacketError{kProtocolError, "PUBLISH: QoS 2, above the QoS 1 subscribed"};
    }
    if (out->qos == 0 && out->dup) return PacketError{kProtocolError, "PUBLISH: DUP set on QoS 0"};
    WireReader reader(body, "PUBLISH");
    out->topic = std::string(reader.utf8_string("topic name"));
    if (out->qos > 0) {
        out->packet_id = reader.two_byte_integer("packet identifier");
        if (!reader.failed() && out->packet_id == 0) reader.fail("packet identifier", "is 0");
    }
    decode_properties(&reader, PropertyContext::kPublish, &out->properties);
    if (reader.failed()) return PacketError{reader.reason_code(), reader.error()};
    out->payload = std::string(reader.bytes(reader.remaining(), "payload"));
    if (out->topic.find_first_of("+#") != std::string::npos) {
        return PacketError{kProtocolError,
                           "PUBLISH topic name \"" + out->topic + "\" holds a wildcard"};
    }
    return std::nullopt;
}

void append_puback(uint16_t packet_id, std::string* out) {
    out->push_back(static_cast<char>(kPuback << 4));
    out->push_back(2);
    out->push_back(static_cast<char>(packet_id >> 8));
    out->push_back(static_cast<char>(packet_id));
}

}  // namespace outpost::bridge::mqtt5
