// MQTT packets as bytes on the wire, written from the MQTT 3.1.1 and 5
// specifications, for the tests of the publish scanner and the relay.
#ifndef OUTPOST_TESTS_VM_REPLAY_MQTT_BYTES_H
#define OUTPOST_TESTS_VM_REPLAY_MQTT_BYTES_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace outpost::testing::mqtt_bytes {

inline std::string varint(size_t value) {
    std::string out;
    do {
        uint8_t byte = value % 128;
        value /= 128;
        if (value > 0) byte |= 0x80;
        out.push_back(static_cast<char>(byte));
    } while (value > 0);
    return out;
}

inline std::string packet(uint8_t first, const std::string& body) {
    return std::string(1, static_cast<char>(first)) + varint(body.size()) + body;
}

inline std::string u16_string(const std::string& text) {
    return std::string(1, static_cast<char>(text.size() >> 8)) +
           std::string(1, static_cast<char>(text.size() & 0xFF)) + text;
}

// CONNECT at protocol level 4 (3.1.1) or 5, clean session, keep-alive 60.
inline std::string connect(int level) {
    return packet(0x10, u16_string("MQTT") + std::string(1, static_cast<char>(level)) +
                            std::string("\x02\x00\x3c", 3) +
                            (level == 5 ? std::string(1, '\0') : "") + u16_string("gw"));
}

// A QoS 1 PUBLISH; MQTT 5 adds a properties block (here a payload format
// indicator, so a reader must skip it).
inline std::string publish(const std::string& topic, const std::string& payload, int level) {
    std::string body = u16_string(topic) + std::string("\x00\x07", 2);
    if (level == 5) body += std::string("\x02\x01\x01", 3);
    return packet(0x32, body + payload);
}

}  // namespace outpost::testing::mqtt_bytes

#endif  // OUTPOST_TESTS_VM_REPLAY_MQTT_BYTES_H
