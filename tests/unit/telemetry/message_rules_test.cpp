// Telemetry keys (future topic levels) and the datagram format.
#include <catch2/catch.hpp>
#include <string>

#include "outpost/telemetry.h"
#include "telemetry/datagram.h"

using namespace outpost;
using namespace outpost::telemetry;

TEST_CASE("keys of one or more plain topic levels are accepted") {
    CHECK(is_valid_telemetry_key("temp"));
    CHECK(is_valid_telemetry_key("pump-3/rpm"));
    CHECK(is_valid_telemetry_key("line.2/motor/current_A"));
    CHECK(is_valid_telemetry_key(std::string(64, 'k')));
}

TEST_CASE("keys with wildcards, empty levels or odd characters are refused") {
    for (const char* key : {"", "/", "a/", "/a", "a//b", "a/+", "#", "a/#", "temp+1", "sp ace",
                            "tab\t", "new\nline", "ünï"}) {
        CHECK_FALSE(is_valid_telemetry_key(key));
    }
    CHECK_FALSE(is_valid_telemetry_key(std::string_view("a\0b", 3)));
}

TEST_CASE("keys longer than their bounds are refused") {
    CHECK_FALSE(is_valid_telemetry_key(std::string(65, 'k')));  // one level above 64
    std::string long_key;
    while (long_key.size() + 11 <= kMaxTelemetryKeyBytes) long_key += "abcdefghij/";
    long_key += "z";
    REQUIRE(long_key.size() <= kMaxTelemetryKeyBytes);
    CHECK(is_valid_telemetry_key(long_key));
    CHECK_FALSE(is_valid_telemetry_key(long_key + "/abcdefghij"));
}

TEST_CASE("a datagram splits at its first newline into key and payload") {
    auto parts = split_datagram("boiler/temp\n71.5");
    REQUIRE(parts.has_value());
    CHECK(parts->key == "boiler/temp");
    CHECK(parts->payload == "71.5");
}

TEST_CASE("a datagram payload keeps further newlines and binary bytes exactly") {
    const std::string bytes("k\nline1\nline2\0\xff", 16);
    auto parts = split_datagram(bytes);
    REQUIRE(parts.has_value());
    CHECK(parts->key == "k");
    CHECK(parts->payload == std::string_view("line1\nline2\0\xff", 14));
}

TEST_CASE("a datagram with an empty payload or an empty key still splits") {
    auto empty_payload = split_datagram("k\n");
    REQUIRE(empty_payload.has_value());
    CHECK(empty_payload->payload.empty());
    auto empty_key = split_datagram("\npayload");
    REQUIRE(empty_key.has_value());
    CHECK_FALSE(is_valid_telemetry_key(empty_key->key));
}

TEST_CASE("a datagram without a newline is malformed") {
    CHECK_FALSE(split_datagram("").has_value());
    CHECK_FALSE(split_datagram("temp 21.5").has_value());
}
