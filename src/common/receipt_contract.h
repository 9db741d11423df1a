// The receipt wire contract: how the bridge tells a gateway which of its
// events RocketMQ stored (SEND_OK), and how the gateway reads that. Both
// ends use this file and nothing else, so the topic and the payload are
// defined once.
//
// Topic: the gateway's own prefix plus "receipt": the levels of the event's
// topic up to and including the gateway level, e.g.
//   outpost/<gatewayId>/alarm/<deviceId>  ->  outpost/<gatewayId>/receipt
// QoS 1, not retained. A receipt only ever goes to the prefix the event
// came from, so a broker ACL "pattern read outpost/%u/receipt" lets each
// gateway read its own receipts and nothing else.
//
// Payload: {"v":1,"eventIds":["<uuid>",...]}, 1 to kMaxReceiptIds canonical
// lower-case UUIDs, at most kMaxReceiptBytes. Members other than "v" and
// "eventIds" are refused (a newer version must change "v").
//
// Receipts are best effort: a lost receipt only means the gateway publishes
// the event again after its timeout (same eventId), never a loss.
#ifndef OUTPOST_COMMON_RECEIPT_CONTRACT_H
#define OUTPOST_COMMON_RECEIPT_CONTRACT_H

#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace outpost::receipt {

// The last topic level of a receipt topic.
constexpr const char* kTopicLevel = "receipt";
// The only payload version so far.
constexpr int kVersion = 1;
// Ids in one receipt message, and its size: 1000 ids are ~39 KB.
constexpr std::size_t kMaxReceiptIds = 1000;
constexpr std::size_t kMaxReceiptBytes = 64 * 1024;

// "<prefix>receipt" for a gateway whose topics start with `gateway_prefix`
// ("outpost/<gatewayId>/", with its trailing slash): the gateway's side.
std::string topic_for_prefix(const std::string& gateway_prefix);

// The receipt topic for an event that arrived on `event_topic`, whose level
// `gateway_level` (0-based) holds the gateway id: the bridge's side. nullopt
// when the topic has no such level or it is empty.
std::optional<std::string> topic_for_event(const std::string& event_topic, int gateway_level);

// The payload for `event_ids` (1 to kMaxReceiptIds canonical UUIDs; the
// caller keeps to that bound).
std::string render(const std::vector<std::string>& event_ids);

// What a receipt payload said, or why it is refused (one line).
struct Malformed {
    std::string reason;
};
std::variant<std::vector<std::string>, Malformed> parse(const std::string& payload);

}  // namespace outpost::receipt

#endif  // OUTPOST_COMMON_RECEIPT_CONTRACT_H
