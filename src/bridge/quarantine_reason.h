// Why a message went to the quarantine topic. The names are stable: they are
// the quarantined message's TAGS, its OUTPOST_REASON property and the keys of
// the "quarantined" counters.
#ifndef OUTPOST_BRIDGE_QUARANTINE_REASON_H
#define OUTPOST_BRIDGE_QUARANTINE_REASON_H

#include <string>

namespace outpost::bridge {

enum class QuarantineReason {
    kPayloadTooLarge,   // more than limits.max_payload_bytes (not parsed)
    kInvalidUtf8,       // the payload is not well-formed UTF-8
    kMalformedJson,     // not one unambiguous JSON value (truncated, trailing bytes, a key
                        // repeated in one object, a byte-order mark before it, ...)
    kJsonTooDeep,       // objects/arrays nested deeper than limits.max_json_depth
    kSchemaViolation,   // breaks the envelope contract (common/envelope_contract.h, the rules
                        // of schema/event.schema.json); the detail names the field
    kGatewayMismatch,   // envelope gatewayId differs from the topic's gateway level
    kDeviceMismatch,    // envelope deviceId differs from the topic's device level
    kUnmappedTopic,     // no mapping rule matches the MQTT topic
    kRocketMqRejected,  // RocketMQ refused the valid message for good (e.g. NO_PERMISSION)
};

// "payload_too_large", "invalid_utf8", ... (lower snake case).
const char* quarantine_reason_name(QuarantineReason reason);

// A rejected message: the reason and a one-line explanation for operators.
struct Rejection {
    QuarantineReason reason;
    std::string detail;
    // The envelope's eventId when the payload parsed and held a well-formed
    // one (lets operators find the event); empty otherwise.
    std::string event_id{};
};

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_QUARANTINE_REASON_H
