// What a quarantined message looks like in RocketMQ:
//   TAGS   the reason name ("schema_violation"), so consumers can filter
//   KEYS   "q-<16 hex>" (a hash of topic and payload, the same for every
//          redelivery of the same message), plus the eventId when the
//          payload held a well-formed one
//   body   the payload, cut to limits.quarantine_body_bytes; "-" when empty
//   properties
//     OUTPOST_REASON         the reason name
//     OUTPOST_DETAIL         one line for operators (printable ASCII, <= 512)
//     OUTPOST_MQTT_TOPIC     the topic it was published on (printable ASCII)
//     OUTPOST_PAYLOAD_BYTES  the payload's size before any cut
//     OUTPOST_TRUNCATED      "true" when the body was cut
#ifndef OUTPOST_BRIDGE_ROCKETMQ_QUARANTINE_MESSAGE_H
#define OUTPOST_BRIDGE_ROCKETMQ_QUARANTINE_MESSAGE_H

#include <cstddef>
#include <string>

#include "bridge/message_sink.h"
#include "bridge/mqtt/inbound_message.h"
#include "bridge/quarantine_reason.h"

namespace outpost::bridge {

// "q-" + 16 lower-case hex digits of FNV-1a 64 over topic, a NUL byte and
// payload.
std::string quarantine_key(const std::string& topic, const std::string& payload);

SinkMessage quarantine_message(const InboundMessage& message, const Rejection& rejection,
                               const std::string& quarantine_topic, std::size_t max_body_bytes);

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_ROCKETMQ_QUARANTINE_MESSAGE_H
