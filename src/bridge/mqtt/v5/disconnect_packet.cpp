#include "bridge/mqtt/v5/disconnect_packet.h"

#include "bridge/mqtt/v5/reason_codes.h"
#include "bridge/mqtt/v5/wire_writer.h"

namespace outpost::bridge::mqtt5 {

std::string encode_disconnect(uint8_t reason_code) {
    WireWriter packet;
    packet.byte(reason_code);
    return packet.finish(kDisconnect << 4);
}

std::string encode_pingreq() {
    return std::string{static_cast<char>(kPingreq << 4), 0};
}

PacketCheck decode_disconnect(uint8_t flags, std::string_view body, Disconnect* out) {
    if (flags != 0) return PacketError{kMalformedPacket, "DISCONNECT: reserved flags are set"};
    if (body.empty()) return std::nullopt;  // 3.14.2.1: no reason code means 0x00
    WireReader reader(body, "DISCONNECT");
    out->reason_code = reader.byte("reason code");
    if (reader.remaining() > 0) {
        decode_properties(&reader, PropertyContext::kDisconnect, &out->properties);
    }
    if (reader.failed()) return PacketError{reader.reason_code(), reader.error()};
    return std::nullopt;
}

}  // namespace outpost::bridge::mqtt5
