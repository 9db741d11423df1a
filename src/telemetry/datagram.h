// The datagram format of the telemetry socket (outpost/telemetry.h):
// "<key>\n<payload>", the key ending at the first newline.
#ifndef OUTPOST_TELEMETRY_DATAGRAM_H
#define OUTPOST_TELEMETRY_DATAGRAM_H

#include <optional>
#include <string_view>

namespace outpost::telemetry {

struct DatagramParts {
    std::string_view key;      // not yet validated
    std::string_view payload;  // may be empty or binary
};

// Splits one datagram; nothing when it holds no newline. The views point
// into `datagram`.
std::optional<DatagramParts> split_datagram(std::string_view datagram);

}  // namespace outpost::telemetry

#endif  // OUTPOST_TELEMETRY_DATAGRAM_H
