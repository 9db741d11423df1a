// Writing the MQTT v5 data representations (OASIS MQTT 5.0, 1.5) and whole
// packets: a packet is built body first, then framed with its fixed header
// (the type and flags byte and the Remaining Length) by finish().
#ifndef OUTPOST_BRIDGE_MQTT_V5_WIRE_WRITER_H
#define OUTPOST_BRIDGE_MQTT_V5_WIRE_WRITER_H

#include <cstdint>
#include <string>
#include <string_view>

namespace outpost::bridge::mqtt5 {

// Appends `value` (at most kMaxVariableByteInteger) in its shortest form.
void append_variable_byte_integer(uint32_t value, std::string* out);

class WireWriter final {
  public:
    void byte(uint8_t value) { body_.push_back(static_cast<char>(value)); }
    void two_byte_integer(uint16_t value);
    void four_byte_integer(uint32_t value);
    void variable_byte_integer(uint32_t value) { append_variable_byte_integer(value, &body_); }
    // A two byte length and the bytes. The caller checked that `text` is
    // valid (check_mqtt_utf8) and at most 65,535 bytes long.
    void utf8_string(std::string_view text) { binary(text); }
    void binary(std::string_view data);
    void raw(std::string_view data) { body_.append(data); }
    // A Properties block (2.2.2): `block`'s length as a Variable Byte
    // Integer, then its bytes.
    void properties(const WireWriter& block) {
        variable_byte_integer(static_cast<uint32_t>(block.body_.size()));
        raw(block.body_);
    }

    // The whole packet: `type_and_flags`, Remaining Length, the body.
    std::string finish(uint8_t type_and_flags) const;

  private:
    std::string body_;
};

}  // namespace outpost::bridge::mqtt5

#endif  // OUTPOST_BRIDGE_MQTT_V5_WIRE_WRITER_H
