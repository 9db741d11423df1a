// One JSON text, read the way every reader downstream reads it. RFC 8259
// leaves two doors open that let two parsers see different documents in the
// same bytes; this parse closes both:
//   - a key repeated within one object: nlohmann keeps the last, many
//     parsers keep the first, so a forwarder and a consumer would disagree
//     on eventId (and a dedupe key would name another event than the body);
//   - a UTF-8 byte-order mark before the value (RFC 8259 section 8.1: must
//     not be added; some parsers refuse it, nlohmann skips it).
// Nesting is bounded while parsing, so hostile depth costs neither stack nor
// memory. Used by the bridge for every MQTT payload and by the store for an
// event's payload_json. Never throws.
//
// The including part depends on nlohmann_json itself.
#ifndef OUTPOST_COMMON_STRICT_JSON_H
#define OUTPOST_COMMON_STRICT_JSON_H

#include <nlohmann/json.hpp>
#include <string>
#include <variant>

namespace outpost {

struct JsonRefusal {
    enum class Kind {
        kMalformed,      // not one JSON value: syntax, truncation, trailing bytes
        kByteOrderMark,  // starts with EF BB BF
        kDuplicateKey,   // a key appears twice in one object
        kTooDeep,        // objects/arrays nest deeper than the limit
    };
    Kind kind;
    // One line, to follow the name of what was parsed: "payload repeats key
    // \"eventId\" in one object".
    std::string detail;
};

// Parses `text` as exactly one JSON value whose objects and arrays nest at
// most `max_depth` deep ({} is depth 1, {"a":[]} depth 2). A BOM is
// reported before anything else; otherwise the first problem the parse
// meets.
std::variant<nlohmann::json, JsonRefusal> parse_strict_json(const std::string& text, int max_depth);

}  // namespace outpost

#endif  // OUTPOST_COMMON_STRICT_JSON_H
