#include "bridge/rocketmq/quarantine_message.h"

#include <cstdint>
#include <cstdio>

namespace outpost::bridge {
namespace {

constexpr std::size_t kMaxPropertyLength = 512;

// Property values must not carry RocketMQ's separators (\x01, \x02) and
// should read well in mqadmin: keep printable ASCII, mark the rest.
std::string printable(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (out.size() >= kMaxPropertyLength) break;
        const auto byte = static_cast<unsigned char>(c);
        out += (byte >= 0x20 && byte < 0x7F) ? c : '?';
    }
    return out;
}

}  // namespace

std::string quarantine_key(const std::string& topic, const std::string& payload) {
    std::uint64_t hash = 0xcbf29ce484222325ULL;
    auto mix = [&hash](unsigned char byte) {
        hash ^= byte;
        hash *= 0x100000001b3ULL;
    };
    for (char c : topic) mix(static_cast<unsigned char>(c));
    mix(0);
    for (char c : payload) mix(static_cast<unsigned char>(c));
    char text[19];
    std::snprintf(text, sizeof text, "q-%016llx", static_cast<unsigned long long>(hash));
    return text;
}

SinkMessage quarantine_message(const InboundMessage& message, const Rejection& rejection,
                               const std::string& quarantine_topic, std::size_t max_body_bytes) {
    SinkMessage out;
    const std::string reason = quarantine_reason_name(rejection.reason);
    out.topic = quarantine_topic;
    out.tags = reason;
    out.keys = quarantine_key(message.topic, message.payload);
    if (!rejection.event_id.empty()) out.keys += " " + rejection.event_id;
    const bool truncated = message.payload.size() > max_body_bytes;
    out.body = truncated ? message.payload.substr(0, max_body_bytes) : message.payload;
    if (out.body.empty()) out.body = "-";
    out.properties["OUTPOST_REASON"] = reason;
    out.properties["OUTPOST_DETAIL"] = printable(rejection.detail);
    out.properties["OUTPOST_MQTT_TOPIC"] = printable(message.topic);
    out.properties["OUTPOST_PAYLOAD_BYTES"] = std::to_string(message.payload.size());
    if (truncated) out.properties["OUTPOST_TRUNCATED"] = "true";
    return out;
}

}  // namespace outpost::bridge
