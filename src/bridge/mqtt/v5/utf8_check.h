// The rule for MQTT UTF-8 Encoded Strings (OASIS MQTT 5.0, 1.5.4): well-formed
// UTF-8 as RFC 3629 defines it (no overlong forms, no code points above
// U+10FFFF, no UTF-16 surrogates U+D800..U+DFFF) and no U+0000. A receiver
// that finds anything else must treat the packet as malformed. Control
// characters and non-characters are allowed through: the specification
// lets a receiver refuse them but does not require it.
#ifndef OUTPOST_BRIDGE_MQTT_V5_UTF8_CHECK_H
#define OUTPOST_BRIDGE_MQTT_V5_UTF8_CHECK_H

#include <string>
#include <string_view>

namespace outpost::bridge::mqtt5 {

// True when `text` follows the rule above; otherwise false and *why says
// what is wrong and at which byte ("U+0000 at byte 4").
bool check_mqtt_utf8(std::string_view text, std::string* why);

}  // namespace outpost::bridge::mqtt5

#endif  // OUTPOST_BRIDGE_MQTT_V5_UTF8_CHECK_H
