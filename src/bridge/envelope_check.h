// Everything the bridge checks before it forwards a message, in this order
// (the first failure is the reason reported):
//   1. size, before any parsing            payload_too_large
//   2. UTF-8 of the whole payload          invalid_utf8
//   3. JSON, nesting bounded while parsing malformed_json, json_too_deep
//   4. envelope schema (event.schema.json) schema_violation
//   5. identity: topic levels and the      gateway_mismatch, device_mismatch,
//      broker-stamped identity             identity_missing, identity_mismatch
// Never throws: nlohmann's exceptions are caught here.
#ifndef OUTPOST_BRIDGE_ENVELOPE_CHECK_H
#define OUTPOST_BRIDGE_ENVELOPE_CHECK_H

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>

#include "bridge/config.h"
#include "bridge/inbound_message.h"
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

// Parses `text` as one JSON value whose objects and arrays nest at most
// `max_depth` deep ({} is depth 1, {"a":[]} depth 2). The input is scanned
// once and nothing below the limit is built, so a hostile nesting costs
// neither stack nor memory. Rejections: kMalformedJson, kJsonTooDeep.
std::variant<nlohmann::json, Rejection> parse_bounded_json(const std::string& text, int max_depth);

// Checks `document` against schema/event.schema.json (schemaVersion 1):
// required fields, types, patterns, lengths, no unknown top-level fields,
// and the alarm payload's optional fields. nullopt when it conforms; else a
// kSchemaViolation whose detail names the field.
std::optional<Rejection> check_envelope_schema(const nlohmann::json& document);

// Steps 1 to 5 above for one message.
std::variant<CheckedEnvelope, Rejection> check_inbound(const InboundMessage& message,
                                                       const LimitsConfig& limits,
                                                       const IdentityConfig& identity);

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_ENVELOPE_CHECK_H
