// Telemetry keys become the tail of an MQTT topic, so they must never carry
// wildcards or empty levels (a subscriber's filter would misread them).
#include <string>

#include "common/text_checks.h"
#include "outpost/telemetry.h"

namespace outpost {

bool is_valid_telemetry_key(std::string_view key) {
    if (key.empty() || key.size() > kMaxTelemetryKeyBytes) return false;
    size_t start = 0;
    for (;;) {
        const size_t slash = key.find('/', start);
        const std::string_view level =
            key.substr(start, slash == std::string_view::npos ? slash : slash - start);
        if (!is_valid_identifier(std::string(level))) return false;  // also rejects "" and + #
        if (slash == std::string_view::npos) return true;
        start = slash + 1;
    }
}

}  // namespace outpost
