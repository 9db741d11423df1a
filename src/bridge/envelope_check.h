// Everything the bridge checks before it forwards a message, in this order
// (the first failure is the reason reported):
//   1. size, before any parsing            payload_too_large
//   2. UTF-8 of the whole payload          invalid_utf8
//   3. JSON read the strict way            malformed_json (also for a repeated
//      (common/strict_json.h), nesting     key or a byte-order mark),
//      bounded while parsing               json_too_deep
//   4. the envelope contract               schema_violation
//      (common/envelope_contract.h, the
//      rules of schema/event.schema.json)
//   5. identity: the topic's gateway and   gateway_mismatch, device_mismatch
//      device levels
// Never throws: nlohmann's exceptions are caught here.
#ifndef OUTPOST_BRIDGE_ENVELOPE_CHECK_H
#define OUTPOST_BRIDGE_ENVELOPE_CHECK_H

#include <nlohmann/json.hpp>
#include <string>
#include <variant>

#include "bridge/config.h"
#include "bridge/mqtt/inbound_message.h"
#include "bridge/quarantine_reason.h"

namespace outpost::bridge {

// A message that passed every check, with the fields forwarding needs.
struct CheckedEnvelope {
    nlohmann::json document;
    std::string event_id;
    std::string event_type;
    std::string gateway_id;
    std::string device_id;
};

// Steps 1 to 5 above for one message.
std::variant<CheckedEnvelope, Rejection> check_inbound(const InboundMessage& message,
                                                       const LimitsConfig& limits,
                                                       const IdentityConfig& identity);

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_ENVELOPE_CHECK_H
