// The receipt wire contract: how the bridge tells a gateway what became of
// its events (RocketMQ stored them, or the bridge quarantined them), and how
// the gateway reads that. Both ends use this file and nothing else, so the
// topic and the payload are defined once.
//
// Topic: the gateway's own prefix plus "receipt": the levels of the event's
// topic up to and including the gateway level, e.g.
//   outpost/<gatewayId>/alarm/<deviceId>  ->  outpost/<gatewayId>/receipt
// QoS 1, not retained. A receipt only ever goes to the prefix the event
// came from, so a broker ACL "pattern read outpost/%u/receipt" lets each
// gateway read its own receipts and nothing else.
//
// Payload, version 1 (confirmations):
//   {"v":1,"eventIds":["<uuid>",...]}
// Version 2 adds negative receipts (the bridge quarantined these events):
//   {"v":2,"rejected":[{"eventId":"<uuid>","code":"schema_violation",
//                        "text":"..."},...]}
// A version 2 message may also carry "eventIds". Every id is a canonical
// lower-case UUID; a message names 1 to kMaxReceiptIds events in all, is at
// most kMaxReceiptBytes and nests at most kMaxDepth deep (every version).
// `code` is 1 to kMaxCodeBytes of [a-z0-9_], `text` 0 to kMaxTextBytes
// without control characters.
//
// Compatibility (DESIGN.md, "Receipts: versions and upgrade order"):
//  C1. A writer uses the lowest version that carries its message: a
//      confirmation is always version 1, so every gateway ever released
//      reads it; rejections go in version 2 messages of their own (never
//      beside eventIds), so a gateway that refuses version 2 loses no
//      confirmation with it.
//  C2. A reader ignores members it does not know, in the document and in a
//      rejection. A member that may be ignored may be added without a new
//      version; one that changes what a reader must do needs a new version.
//  C3. A reader ignores, whole, a message of a version above the newest it
//      knows (Malformed::newer_version): it applies nothing of it. Members it
//      knows but of the wrong form make the message malformed.
// Gateways released before version 2 refuse every unknown member and every
// version but 1: to them a rejection is a malformed receipt, counted and
// dropped, and the event stays unconfirmed as it always did.
//
// Receipts are best effort: a lost confirmation only means the gateway
// publishes the event again after its timeout (same eventId), never a loss;
// a lost rejection means the bridge quarantines the event again when it
// comes back, and answers again.
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
// Version 1: eventIds only. Version 2: "rejected" too. The newest this
// release reads and writes.
constexpr int kConfirmVersion = 1;
constexpr int kRejectVersion = 2;
constexpr int kNewestVersion = kRejectVersion;
// Events named in one receipt message, and its size: 1000 ids are ~39 KB.
constexpr std::size_t kMaxReceiptIds = 1000;
constexpr std::size_t kMaxReceiptBytes = 64 * 1024;
// Rejections in one message: each may carry kMaxTextBytes of text.
constexpr std::size_t kMaxRejections = 100;
constexpr std::size_t kMaxCodeBytes = 64;
constexpr std::size_t kMaxTextBytes = 300;
// Nesting of any version: {"rejected":[{...}]} is 3; one more for members
// a later version may add.
constexpr int kMaxDepth = 4;

// "<prefix>receipt" for a gateway whose topics start with `gateway_prefix`
// ("outpost/<gatewayId>/", with its trailing slash): the gateway's side.
std::string topic_for_prefix(const std::string& gateway_prefix);

// The receipt topic for an event that arrived on `event_topic`, whose level
// `gateway_level` (0-based) holds the gateway id: the bridge's side. nullopt
// when the topic has no such level or it is empty.
std::optional<std::string> topic_for_event(const std::string& event_topic, int gateway_level);

// One negative receipt: the bridge quarantined this event and will not
// forward it as it is.
struct Rejection {
    std::string event_id;
    std::string code;  // the bridge's quarantine reason, e.g. "schema_violation"
    std::string text;  // one line for an operator
    bool operator==(const Rejection& other) const {
        return event_id == other.event_id && code == other.code && text == other.text;
    }
};

// A version 1 payload for `event_ids` (1 to kMaxReceiptIds canonical UUIDs;
// the caller keeps to that bound).
std::string render(const std::vector<std::string>& event_ids);

// A version 2 payload for `rejections` (1 to kMaxRejections, canonical
// UUIDs, codes as above: the caller keeps to that). Texts are made to fit:
// control characters become spaces and a longer text is cut at a UTF-8
// character boundary to kMaxTextBytes.
std::string render_rejections(const std::vector<Rejection>& rejections);

// What a receipt message said.
struct Receipt {
    std::vector<std::string> event_ids;  // stored in RocketMQ
    std::vector<Rejection> rejected;     // quarantined by the bridge
};
// Why a message is not applied (one line). `newer_version`: its version is
// above kNewestVersion (C3), which is not an error of the sender.
struct Malformed {
    std::string reason;
    bool newer_version = false;
};
std::variant<Receipt, Malformed> parse(const std::string& payload);

}  // namespace outpost::receipt

#endif  // OUTPOST_COMMON_RECEIPT_CONTRACT_H
