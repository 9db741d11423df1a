#include "common/listen_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstring>

namespace outpost {
namespace {

Status invalid(const std::string& text, const std::string& why) {
    return Status::error(StatusCode::kInvalidArgument, "\"" + text + "\" " + why);
}

}  // namespace

Result<ListenAddress> parse_listen_address(const std::string& text) {
    const size_t colon = text.rfind(':');
    if (colon == std::string::npos || colon + 1 == text.size()) {
        return invalid(text, "must be \"host:port\", e.g. \"127.0.0.1:9464\"");
    }
    std::string host = text.substr(0, colon);
    const std::string port_text = text.substr(colon + 1);
    if (port_text.size() > 5 || port_text.find_first_not_of("0123456789") != std::string::npos ||
        std::stol(port_text) > 65535) {
        return invalid(text, "has a port that is not a number from 0 to 65535");
    }
    const auto port = static_cast<uint16_t>(std::stol(port_text));
    if (host == "localhost") host = "127.0.0.1";

    ListenAddress result;
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
        sockaddr_in6 v6{};
        v6.sin6_family = AF_INET6;
        v6.sin6_port = htons(port);
        if (inet_pton(AF_INET6, host.substr(1, host.size() - 2).c_str(), &v6.sin6_addr) != 1) {
            return invalid(text, "has no valid IPv6 address in brackets");
        }
        result.loopback = IN6_IS_ADDR_LOOPBACK(&v6.sin6_addr);
        std::memcpy(&result.address, &v6, sizeof v6);
        result.length = sizeof v6;
        return result;
    }
    sockaddr_in v4{};
    v4.sin_family = AF_INET;
    v4.sin_port = htons(port);
    if (inet_pton(AF_INET, host.c_str(), &v4.sin_addr) != 1) {
        return invalid(text, "needs a numeric IPv4 address, \"[IPv6]\" or \"localhost\"");
    }
    result.loopback = (ntohl(v4.sin_addr.s_addr) >> 24) == 127;
    std::memcpy(&result.address, &v4, sizeof v4);
    result.length = sizeof v4;
    return result;
}

Result<ListenAddress> parse_metrics_listen_address(const std::string& text,
                                                   bool allow_non_loopback) {
    Result<ListenAddress> address = parse_listen_address(text);
    if (address.is_ok() && !address->loopback && !allow_non_loopback) {
        return invalid(text,
                       "is not a loopback address; set allow_non_loopback to expose the "
                       "metrics");
    }
    return address;
}

std::string describe_bound_address(int fd) {
    sockaddr_storage address{};
    socklen_t length = sizeof address;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return "";
    char host[INET6_ADDRSTRLEN] = {};
    if (address.ss_family == AF_INET6) {
        const auto* v6 = reinterpret_cast<const sockaddr_in6*>(&address);
        inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof host);
        return "[" + std::string(host) + "]:" + std::to_string(ntohs(v6->sin6_port));
    }
    const auto* v4 = reinterpret_cast<const sockaddr_in*>(&address);
    inet_ntop(AF_INET, &v4->sin_addr, host, sizeof host);
    return std::string(host) + ":" + std::to_string(ntohs(v4->sin_port));
}

}  // namespace outpost
