#include "bridge/mqtt/v5/utf8_check.h"

#include <cstdint>

namespace outpost::bridge::mqtt5 {
namespace {

bool refuse(std::string* why, const char* what, std::size_t at) {
    *why = std::string(what) + " at byte " + std::to_string(at);
    return false;
}

}  // namespace

bool check_mqtt_utf8(std::string_view text, std::string* why) {
    std::size_t i = 0;
    while (i < text.size()) {
        const auto lead = static_cast<uint8_t>(text[i]);
        if (lead < 0x80) {
            if (lead == 0) return refuse(why, "U+0000 (not allowed in MQTT strings)", i);
            ++i;
            continue;
        }
        std::size_t length = 0;
        uint32_t code = 0;
        uint32_t smallest = 0;  // below this the same code point had a shorter form
        if ((lead & 0xe0) == 0xc0) {
            length = 2, code = lead & 0x1f, smallest = 0x80;
        } else if ((lead & 0xf0) == 0xe0) {
            length = 3, code = lead & 0x0f, smallest = 0x800;
        } else if ((lead & 0xf8) == 0xf0) {
            length = 4, code = lead & 0x07, smallest = 0x10000;
        } else {
            return refuse(why, "not valid UTF-8 (bad lead byte)", i);
        }
        if (text.size() - i < length) return refuse(why, "not valid UTF-8 (truncated sequence)", i);
        for (std::size_t k = 1; k < length; ++k) {
            const auto next = static_cast<uint8_t>(text[i + k]);
            if ((next & 0xc0) != 0x80) {
                return refuse(why, "not valid UTF-8 (bad continuation byte)", i + k);
            }
            code = code << 6 | (next & 0x3f);
        }
        if (code < smallest) return refuse(why, "not valid UTF-8 (overlong form)", i);
        if (code > 0x10ffff) return refuse(why, "not valid UTF-8 (above U+10FFFF)", i);
        if (code >= 0xd800 && code <= 0xdfff) return refuse(why, "a UTF-16 surrogate", i);
        i += length;
    }
    return true;
}

}  // namespace outpost::bridge::mqtt5
