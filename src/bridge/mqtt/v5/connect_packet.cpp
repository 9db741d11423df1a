#include "bridge/mqtt/v5/connect_packet.h"

#include "bridge/mqtt/v5/reason_codes.h"
#include "bridge/mqtt/v5/utf8_check.h"
#include "bridge/mqtt/v5/wire_writer.h"

namespace outpost::bridge::mqtt5 {
namespace {

bool sendable(std::string_view text, const char* field, std::string* why) {
    if (text.size() > 65535) {
        *why = std::string(field) + " is longer than 65,535 bytes";
        return false;
    }
    std::string problem;
    if (!check_mqtt_utf8(text, &problem)) {
        *why = std::string(field) + " is not a valid MQTT string: " + problem;
        return false;
    }
    return true;
}

}  // namespace

std::optional<std::string> encode_connect(const ConnectFields& fields, std::string* why) {
    if (!sendable(fields.client_id, "client id", why)) return std::nullopt;
    if (fields.user_name && !sendable(*fields.user_name, "user name", why)) return std::nullopt;
    if (fields.password && fields.password->size() > 65535) {
        *why = "password is longer than 65,535 bytes";
        return std::nullopt;
    }
    if (fields.receive_maximum == 0) {
        *why = "Receive Maximum must be at least 1";
        return std::nullopt;
    }
    WireWriter properties;
    properties.byte(0x11);  // Session Expiry Interval
    properties.four_byte_integer(fields.session_expiry_interval);
    properties.byte(0x21);  // Receive Maximum
    properties.two_byte_integer(fields.receive_maximum);
    if (fields.maximum_packet_size > 0) {
        properties.byte(0x27);
        properties.four_byte_integer(fields.maximum_packet_size);
    }
    if (fields.topic_alias_maximum > 0) {
        properties.byte(0x22);
        properties.two_byte_integer(fields.topic_alias_maximum);
    }
    WireWriter packet;
    packet.utf8_string("MQTT");
    packet.byte(5);  // protocol version
    uint8_t flags = 0;
    if (fields.user_name) flags |= 0x80;
    if (fields.password) flags |= 0x40;
    if (fields.clean_start) flags |= 0x02;
    packet.byte(flags);
    packet.two_byte_integer(fields.keep_alive_seconds);
    packet.properties(properties);
    packet.utf8_string(fields.client_id);
    if (fields.user_name) packet.utf8_string(*fields.user_name);
    if (fields.password) packet.binary(*fields.password);
    return packet.finish(kConnect << 4);
}

PacketCheck decode_connack(uint8_t flags, std::string_view body, Connack* out) {
    if (flags != 0) return PacketError{kMalformedPacket, "CONNACK: reserved flags are set"};
    WireReader reader(body, "CONNACK");
    const uint8_t acknowledge_flags = reader.byte("acknowledge flags");
    if ((acknowledge_flags & 0xfe) != 0) reader.fail("acknowledge flags", "reserved bits are set");
    out->session_present = (acknowledge_flags & 1) != 0;
    out->reason_code = reader.byte("reason code");
    decode_properties(&reader, PropertyContext::kConnack, &out->properties);
    if (!reader.failed() && reader.remaining() != 0) {
        reader.fail("end", std::to_string(reader.remaining()) + " bytes after the properties");
    }
    if (reader.failed()) return PacketError{reader.reason_code(), reader.error()};
    return std::nullopt;
}

}  // namespace outpost::bridge::mqtt5
