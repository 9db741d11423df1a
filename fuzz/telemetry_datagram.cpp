// The telemetry datagram ("<key>\n<payload>") as the lane splits it, and
// the key rule applied to what the split yields. Properties: a datagram
// with no newline is refused; otherwise key + '\n' + payload is the
// datagram, the key holds no newline, and a key the rule accepts can only
// make MQTT topic levels of [A-Za-z0-9._-] (no wildcard, no empty level).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "common/text_checks.h"
#include "fuzz_check.h"
#include "outpost/telemetry.h"
#include "telemetry/datagram.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view datagram(reinterpret_cast<const char*>(data), size);
    const auto parts = outpost::telemetry::split_datagram(datagram);
    if (!parts) {
        FUZZ_CHECK(datagram.find('\n') == std::string_view::npos,
                   "a datagram with a newline is split");
        return 0;
    }
    FUZZ_CHECK(parts->key.find('\n') == std::string_view::npos,
               "the key ends at the first newline");
    FUZZ_CHECK(std::string(parts->key) + '\n' + std::string(parts->payload) == datagram,
               "key, newline and payload make the datagram");
    if (!outpost::is_valid_telemetry_key(parts->key)) return 0;
    FUZZ_CHECK(!parts->key.empty() && parts->key.size() <= outpost::kMaxTelemetryKeyBytes,
               "an accepted key has 1 to kMaxTelemetryKeyBytes bytes");
    FUZZ_CHECK(parts->key.front() != '/' && parts->key.back() != '/' &&
                   parts->key.find("//") == std::string_view::npos,
               "an accepted key has no empty topic level");
    for (char c : parts->key) {
        FUZZ_CHECK(c == '/' || outpost::is_identifier_char(c),
                   "an accepted key holds only identifier characters and '/'");
    }
    return 0;
}
