// The envelope contract (envelope_contract.h) applied to a parsed JSON
// document: the bridge checks every arriving envelope with it, the store an
// event's payload. Parse with parse_strict_json (strict_json.h) first: a
// document cannot show repeated keys or a byte-order mark any more.
//
// The including part depends on nlohmann_json itself.
#ifndef OUTPOST_COMMON_ENVELOPE_DOCUMENT_H
#define OUTPOST_COMMON_ENVELOPE_DOCUMENT_H

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace outpost::envelope {

// nullopt when `document` is a conforming envelope: an object with every
// member of envelope_fields() and no other, each of its type and within its
// rule, integers written as integer literals within int64, and a payload
// object whose alarm members conform. Otherwise one line naming the first
// field that does not, e.g. "seq must be an integer literal (no fraction or
// exponent)" or "payload.alarmType holds control character U+0000".
std::optional<std::string> check_envelope(const nlohmann::json& document);

// The same for a payload alone: an object whose members named in
// payload_fields() conform; other members are free. Messages name the field
// as "payload.severity ...".
std::optional<std::string> check_payload(const nlohmann::json& payload);

}  // namespace outpost::envelope

#endif  // OUTPOST_COMMON_ENVELOPE_DOCUMENT_H
