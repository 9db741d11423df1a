#include "proof/vm/publish_scanner.h"

#include <nlohmann/json.hpp>

namespace outpost::torture::vm {
namespace {

constexpr uint8_t kConnect = 1;
constexpr uint8_t kPublish = 3;

// MQTT's variable byte integer at `text[*at]`; false if incomplete or longer
// than four bytes (*bad set for the latter).
bool read_varint(const std::string& text, size_t* at, uint64_t* value, bool* bad) {
    *value = 0;
    for (int i = 0; i < 4; ++i) {
        if (*at >= text.size()) return false;
        const auto byte = static_cast<uint8_t>(text[(*at)++]);
        *value |= static_cast<uint64_t>(byte & 0x7F) << (7 * i);
        if ((byte & 0x80) == 0) return true;
    }
    *bad = true;
    return false;
}

bool read_u16(const std::string& text, size_t* at, size_t* value) {
    if (*at + 2 > text.size()) return false;
    *value = static_cast<size_t>(static_cast<uint8_t>(text[*at])) << 8 |
             static_cast<uint8_t>(text[*at + 1]);
    *at += 2;
    return true;
}

}  // namespace

std::vector<std::string> PublishScanner::feed(const uint8_t* data, size_t size) {
    std::vector<std::string> ids;
    if (failed_) return ids;
    pending_.append(reinterpret_cast<const char*>(data), size);
    size_t start = 0;
    while (start < pending_.size()) {
        size_t at = start + 1;
        uint64_t length = 0;
        bool bad = false;
        if (!read_varint(pending_, &at, &length, &bad)) {
            failed_ = bad;
            break;
        }
        if (pending_.size() - at < length) break;
        packet(static_cast<uint8_t>(pending_[start]), pending_.substr(at, length), ids);
        start = at + length;
    }
    pending_.erase(0, failed_ ? pending_.size() : start);
    return ids;
}

void PublishScanner::packet(uint8_t first, const std::string& body, std::vector<std::string>& ids) {
    const uint8_t type = first >> 4;
    size_t at = 0;
    size_t length = 0;
    if (type == kConnect) {
        // Protocol name, then the protocol level (4: 3.1.1, 5: MQTT 5).
        if (read_u16(body, &at, &length) && at + length < body.size()) {
            protocol_level_ = static_cast<uint8_t>(body[at + length]);
        }
        return;
    }
    if (type != kPublish || !read_u16(body, &at, &length) || at + length > body.size()) return;
    const std::string topic = body.substr(at, length);
    at += length;
    const int qos = (first >> 1) & 3;
    if (qos > 0) at += 2;  // packet identifier
    if (protocol_level_ >= 5) {
        uint64_t properties = 0;
        bool bad = false;
        if (!read_varint(body, &at, &properties, &bad)) return;
        at += properties;
    }
    if (at > body.size() || topic.find("/alarm/") == std::string::npos) return;
    const auto envelope = nlohmann::json::parse(body.begin() + static_cast<std::ptrdiff_t>(at),
                                                body.end(), nullptr, false);
    if (envelope.is_object() && envelope.contains("eventId") && envelope["eventId"].is_string()) {
        ids.push_back(envelope["eventId"].get<std::string>());
    }
}

}  // namespace outpost::torture::vm
