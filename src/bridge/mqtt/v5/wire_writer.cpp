#include "bridge/mqtt/v5/wire_writer.h"

namespace outpost::bridge::mqtt5 {

void append_variable_byte_integer(uint32_t value, std::string* out) {
    do {
        uint8_t digit = value & 0x7f;
        value >>= 7;
        if (value > 0) digit |= 0x80;
        out->push_back(static_cast<char>(digit));
    } while (value > 0);
}

void WireWriter::two_byte_integer(uint16_t value) {
    byte(static_cast<uint8_t>(value >> 8));
    byte(static_cast<uint8_t>(value));
}

void WireWriter::four_byte_integer(uint32_t value) {
    for (int shift = 24; shift >= 0; shift -= 8) byte(static_cast<uint8_t>(value >> shift));
}

void WireWriter::binary(std::string_view data) {
    two_byte_integer(static_cast<uint16_t>(data.size()));
    body_.append(data);
}

std::string WireWriter::finish(uint8_t type_and_flags) const {
    std::string packet(1, static_cast<char>(type_and_flags));
    append_variable_byte_integer(static_cast<uint32_t>(body_.size()), &packet);
    packet += body_;
    return packet;
}

}  // namespace outpost::bridge::mqtt5
