// Reading the MQTT v5 data representations (OASIS MQTT 5.0, section 1.5)
// out of one packet's bytes: one, two and four byte integers (big-endian),
// Variable Byte Integers, UTF-8 Encoded Strings, Binary Data.
//
// The reader keeps the first error and makes every later read return a
// zero value, so a decoder reads its fields in order and checks failed()
// once at the end. An error names the field ("PUBLISH topic name: not valid
// UTF-8 at byte 3"), for the caller's "malformed packet" message.
#ifndef OUTPOST_BRIDGE_MQTT_V5_WIRE_READER_H
#define OUTPOST_BRIDGE_MQTT_V5_WIRE_READER_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace outpost::bridge::mqtt5 {

// What decode_variable_byte_integer found at the start of a buffer.
enum class VbiState { kComplete, kNeedMore, kMalformed };

// Decodes the Variable Byte Integer at the start of `bytes` (1.5.5): on
// kComplete, *value holds it and *used the bytes it took. kNeedMore: the
// bytes end inside it. kMalformed: a fifth byte would be needed, or the value
// is not in its shortest form (the specification requires the minimum
// number of bytes).
VbiState decode_variable_byte_integer(std::string_view bytes, uint32_t* value, std::size_t* used);

// The largest value a Variable Byte Integer can hold (268,435,455).
inline constexpr uint32_t kMaxVariableByteInteger = 268435455;

class WireReader final {
  public:
    // `bytes` is borrowed and must outlive the reader. `packet` names the
    // packet in error messages ("CONNACK").
    WireReader(std::string_view bytes, const char* packet) : bytes_(bytes), packet_(packet) {}

    uint8_t byte(const char* field);
    uint16_t two_byte_integer(const char* field);
    uint32_t four_byte_integer(const char* field);
    uint32_t variable_byte_integer(const char* field);
    // A UTF-8 Encoded String (1.5.4), checked by check_mqtt_utf8. The view
    // points into the packet's bytes.
    std::string_view utf8_string(const char* field);
    // Binary Data (1.5.6): a two byte length and that many bytes.
    std::string_view binary(const char* field);
    // The next `size` bytes, as they are.
    std::string_view bytes(std::size_t size, const char* field);

    std::size_t remaining() const { return failed_ ? 0 : bytes_.size() - at_; }
    bool failed() const { return failed_; }
    // "<packet> <field>: <why>"; empty while nothing failed.
    const std::string& error() const { return error_; }
    // Records an error found by the decoder itself; the first error wins.
    // `reason_code`: the MQTT Reason Code it calls for, 0x81 Malformed
    // Packet unless the specification names a Protocol Error (0x82): a
    // property given twice, a value out of its range.
    void fail(const char* field, const std::string& why, uint8_t reason_code = 0x81);
    // The Reason Code of the first error (0x81 when none was given).
    uint8_t reason_code() const { return reason_code_; }

  private:
    bool take(std::size_t size, const char* field);

    std::string_view bytes_;
    const char* packet_;
    std::size_t at_ = 0;
    bool failed_ = false;
    std::string error_;
    uint8_t reason_code_ = 0x81;
};

}  // namespace outpost::bridge::mqtt5

#endif  // OUTPOST_BRIDGE_MQTT_V5_WIRE_READER_H
