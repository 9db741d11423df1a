#include "telemetry/datagram.h"

namespace outpost::telemetry {

std::optional<DatagramParts> split_datagram(std::string_view datagram) {
    const size_t newline = datagram.find('\n');
    if (newline == std::string_view::npos) return std::nullopt;
    return DatagramParts{datagram.substr(0, newline), datagram.substr(newline + 1)};
}

}  // namespace outpost::telemetry
