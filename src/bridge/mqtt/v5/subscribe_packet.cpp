#include "bridge/mqtt/v5/subscribe_packet.h"

#include "bridge/mqtt/topic_filter.h"
#include "bridge/mqtt/v5/reason_codes.h"
#include "bridge/mqtt/v5/utf8_check.h"
#include "bridge/mqtt/v5/wire_writer.h"

namespace outpost::bridge::mqtt5 {
namespace {

bool check_filter(const Subscription& subscription, std::string* why) {
    const std::string& filter = subscription.filter;
    std::string problem;
    if (filter.empty())
        problem = "it is empty";
    else if (filter.size() > 65535)
        problem = "it is longer than 65,535 bytes";
    else if (!check_mqtt_utf8(filter, &problem)) {
    } else if (subscription.maximum_qos > 1)
        problem = "QoS 2 is not supported by this subscriber";
    else {
        std::string_view topic = filter;
        if (topic.rfind("$share/", 0) == 0) {
            // $share/GROUP/FILTER: GROUP non-empty, without '/', '+' or '#'.
            const std::size_t slash = topic.find('/', 7);
            const std::string_view group = topic.substr(
                7, slash == std::string_view::npos ? std::string_view::npos : slash - 7);
            if (slash == std::string_view::npos || group.empty() ||
                group.find_first_of("+#") != std::string_view::npos || slash + 1 >= topic.size()) {
                problem = "a shared subscription must read $share/GROUP/FILTER";
            }
            topic = topic.substr(slash == std::string_view::npos ? topic.size() : slash + 1);
        }
        if (problem.empty() && !is_valid_topic_filter(std::string(topic))) {
            problem = "'+' and '#' must each be a whole level, '#' the last";
        }
    }
    if (problem.empty()) return true;
    *why = "topic filter \"" + filter + "\": " + problem;
    return false;
}

}  // namespace

std::optional<std::string> encode_subscribe(uint16_t packet_id,
                                            const std::vector<Subscription>& subscriptions,
                                            std::string* why) {
    if (subscriptions.empty()) {
        *why = "SUBSCRIBE needs at least one topic filter";
        return std::nullopt;
    }
    WireWriter packet;
    packet.two_byte_integer(packet_id);
    packet.properties(WireWriter());  // no Subscription Identifier, no User Property
    for (const Subscription& subscription : subscriptions) {
        if (!check_filter(subscription, why)) return std::nullopt;
        packet.utf8_string(subscription.filter);
        // Options: maximum QoS; No Local, Retain As Published off; Retain
        // Handling 0 (send retained messages at subscribe time).
        packet.byte(subscription.maximum_qos);
    }
    return packet.finish(kSubscribe << 4 | 0x02);  // the flags 3.8.1 fixes
}

PacketCheck decode_suback(uint8_t flags, std::string_view body, Suback* out) {
    if (flags != 0) return PacketError{kMalformedPacket, "SUBACK: reserved flags are set"};
    WireReader reader(body, "SUBACK");
    out->packet_id = reader.two_byte_integer("packet identifier");
    decode_properties(&reader, PropertyContext::kSuback, &out->properties);
    while (!reader.failed() && reader.remaining() > 0) {
        out->reason_codes.push_back(reader.byte("reason code"));
    }
    if (reader.failed()) return PacketError{reader.reason_code(), reader.error()};
    if (out->reason_codes.empty()) {
        return PacketError{kProtocolError, "SUBACK carries no reason code"};
    }
    return std::nullopt;
}

}  // namespace outpost::bridge::mqtt5
