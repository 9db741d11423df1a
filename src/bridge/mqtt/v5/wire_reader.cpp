#include "bridge/mqtt/v5/wire_reader.h"

#include "bridge/mqtt/v5/utf8_check.h"

namespace outpost::bridge::mqtt5 {

VbiState decode_variable_byte_integer(std::string_view bytes, uint32_t* value, std::size_t* used) {
    uint32_t result = 0;
    for (std::size_t i = 0; i < 4; ++i) {
        if (i >= bytes.size()) return VbiState::kNeedMore;
        const auto digit = static_cast<uint8_t>(bytes[i]);
        result |= static_cast<uint32_t>(digit & 0x7f) << (7 * i);
        if ((digit & 0x80) == 0) {
            // A last byte of zero after the first is a longer form than needed.
            if (i > 0 && digit == 0) return VbiState::kMalformed;
            *value = result;
            *used = i + 1;
            return VbiState::kComplete;
        }
    }
    return VbiState::kMalformed;  // the fourth byte says a fifth follows
}

void WireReader::fail(const char* field, const std::string& why, uint8_t reason_code) {
    if (failed_) return;
    failed_ = true;
    reason_code_ = reason_code;
    error_ = std::string(packet_) + " " + field + ": " + why;
}

bool WireReader::take(std::size_t size, const char* field) {
    if (failed_) return false;
    if (bytes_.size() - at_ < size) {
        fail(field, "the packet ends inside it (" + std::to_string(size) + " bytes needed, " +
                        std::to_string(bytes_.size() - at_) + " left)");
        return false;
    }
    return true;
}

uint8_t WireReader::byte(const char* field) {
    if (!take(1, field)) return 0;
    return static_cast<uint8_t>(bytes_[at_++]);
}

uint16_t WireReader::two_byte_integer(const char* field) {
    if (!take(2, field)) return 0;
    const auto high = static_cast<uint8_t>(bytes_[at_]);
    const auto low = static_cast<uint8_t>(bytes_[at_ + 1]);
    at_ += 2;
    return static_cast<uint16_t>(high << 8 | low);
}

uint32_t WireReader::four_byte_integer(const char* field) {
    if (!take(4, field)) return 0;
    uint32_t value = 0;
    for (int i = 0; i < 4; ++i) value = value << 8 | static_cast<uint8_t>(bytes_[at_ + i]);
    at_ += 4;
    return value;
}

uint32_t WireReader::variable_byte_integer(const char* field) {
    if (failed_) return 0;
    uint32_t value = 0;
    std::size_t used = 0;
    switch (decode_variable_byte_integer(bytes_.substr(at_), &value, &used)) {
        case VbiState::kComplete:
            at_ += used;
            return value;
        case VbiState::kNeedMore:
            fail(field, "the packet ends inside a Variable Byte Integer");
            return 0;
        case VbiState::kMalformed:
            fail(field, "not a valid Variable Byte Integer (more than 4 bytes, or not shortest)");
            return 0;
    }
    return 0;
}

std::string_view WireReader::bytes(std::size_t size, const char* field) {
    if (!take(size, field)) return {};
    std::string_view view = bytes_.substr(at_, size);
    at_ += size;
    return view;
}

std::string_view WireReader::binary(const char* field) {
    const uint16_t size = two_byte_integer(field);
    return bytes(size, field);
}

std::string_view WireReader::utf8_string(const char* field) {
    std::string_view text = binary(field);
    if (failed_) return {};
    std::string why;
    if (!check_mqtt_utf8(text, &why)) {
        fail(field, why);
        return {};
    }
    return text;
}

}  // namespace outpost::bridge::mqtt5
