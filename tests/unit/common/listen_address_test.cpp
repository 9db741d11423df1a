// The metrics endpoint's "host:port": loopback recognised, the rest refused
// with a reason.
#include "common/listen_address.h"

#include <catch2/catch.hpp>
#include <string>

using outpost::parse_listen_address;

TEST_CASE("loopback addresses are recognised as loopback", "[common]") {
    for (const std::string text : {"127.0.0.1:9464", "127.3.2.1:1", "localhost:9464", "[::1]:0"}) {
        INFO(text);
        auto address = parse_listen_address(text);
        REQUIRE(address.is_ok());
        CHECK(address->loopback);
    }
}

TEST_CASE("addresses that reach the network are not loopback", "[common]") {
    for (const std::string text : {"0.0.0.0:9464", "192.168.1.10:9464", "[::]:9464"}) {
        INFO(text);
        auto address = parse_listen_address(text);
        REQUIRE(address.is_ok());
        CHECK_FALSE(address->loopback);
    }
}

TEST_CASE("malformed addresses are refused with the reason", "[common]") {
    struct Bad {
        const char* text;
        const char* reason;
    };
    for (const Bad& bad : {Bad{"9464", "host:port"}, Bad{"127.0.0.1:", "host:port"},
                           Bad{"127.0.0.1:70000", "port"}, Bad{"127.0.0.1:-1", "port"},
                           Bad{"metrics.local:9464", "numeric"}, Bad{"[::1:9464", "numeric"}}) {
        INFO(bad.text);
        auto address = parse_listen_address(bad.text);
        REQUIRE_FALSE(address.is_ok());
        CHECK(address.status().code() == outpost::StatusCode::kInvalidArgument);
        CHECK(address.status().message().find(bad.reason) != std::string::npos);
    }
}
