// "host:port" for the metrics endpoint: a numeric IPv4 address, "[IPv6]", or
// "localhost" (= 127.0.0.1). Names are not resolved: a daemon that starts at
// boot must not wait for DNS.
#ifndef OUTPOST_COMMON_LISTEN_ADDRESS_H
#define OUTPOST_COMMON_LISTEN_ADDRESS_H

#include <sys/socket.h>

#include <string>

#include "outpost/status.h"

namespace outpost {

struct ListenAddress {
    sockaddr_storage address{};  // port included
    socklen_t length = 0;
    bool loopback = false;  // 127.0.0.0/8 or ::1
};

// kInvalidArgument with what is wrong ("port must be 0..65535").
Result<ListenAddress> parse_listen_address(const std::string& text);

// The metrics endpoint's rule, for every program that has one: `text` must
// parse, and an address that is not loopback exposes the figures to the
// network, so it needs `allow_non_loopback` (the "allow_non_loopback" key
// next to "listen"). kInvalidArgument saying which rule was broken.
Result<ListenAddress> parse_metrics_listen_address(const std::string& text,
                                                   bool allow_non_loopback);

// "127.0.0.1:9464" / "[::1]:9464" for the bound socket `fd`, "" on error.
std::string describe_bound_address(int fd);

}  // namespace outpost

#endif  // OUTPOST_COMMON_LISTEN_ADDRESS_H
