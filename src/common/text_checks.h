// Checks on untrusted text shared by the gateway store (what it accepts from
// firmware) and the cloud bridge (what it accepts from gateways), so both ends
// apply the very same rules of schema/event.schema.json.
#ifndef OUTPOST_COMMON_TEXT_CHECKS_H
#define OUTPOST_COMMON_TEXT_CHECKS_H

#include <cstddef>
#include <string>

namespace outpost {

constexpr std::size_t kMaxIdentifierLength = 64;

// [A-Za-z0-9._-], in ASCII whatever the locale.
bool is_identifier_char(char c);

// 1 to kMaxIdentifierLength identifier characters: usable as one MQTT topic
// level and a RocketMQ key part. The envelope's gatewayId and deviceId.
bool is_valid_identifier(const std::string& text);

// Well-formed UTF-8: no truncated sequences, overlong forms, surrogates or
// code points beyond U+10FFFF.
bool is_valid_utf8(const std::string& text);

// The number of code points in well-formed UTF-8 `text`: JSON Schema's
// string length.
std::size_t count_code_points(const std::string& text);

// A lower-case canonical UUID of version 7 and the RFC 9562 variant, the form
// of every eventId: ^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$
bool is_lowercase_uuid_v7(const std::string& text);

}  // namespace outpost

#endif  // OUTPOST_COMMON_TEXT_CHECKS_H
