// Message properties use the name\x01value\x02 encoding the broker parses.
#include <catch2/catch.hpp>
#include <map>
#include <string>

#include "rocketmq/properties.h"

using outpost::rocketmq::decode_properties;
using outpost::rocketmq::encode_properties;

TEST_CASE("properties encode as name 0x01 value 0x02 in name order") {
    auto encoded = encode_properties({{"TAGS", "critical"}, {"KEYS", "e1 e2"}, {"WAIT", "true"}});
    REQUIRE(encoded.is_ok());
    CHECK(*encoded ==
          "KEYS\x01"
          "e1 e2\x02TAGS\x01"
          "critical\x02WAIT\x01"
          "true\x02");
}

TEST_CASE("encoded properties decode to the same map") {
    std::map<std::string, std::string> properties = {
        {"UNIQ_KEY", "7F0000010001"}, {"KEYS", "a b"}, {"EMPTY", ""}};
    auto decoded = decode_properties(*encode_properties(properties));
    REQUIRE(decoded.is_ok());
    CHECK(*decoded == properties);
}

TEST_CASE("a last pair without its 0x02 still decodes") {
    auto decoded = decode_properties(
        "A\x01"
        "1\x02"
        "B\x01"
        "2");
    REQUIRE(decoded.is_ok());
    CHECK(decoded->at("B") == "2");
}

TEST_CASE("separator bytes inside a value are refused, not sent corrupt") {
    auto encoded = encode_properties({{"KEYS", "evil\x02TAGS\x01x"}});
    REQUIRE_FALSE(encoded.is_ok());
    CHECK(encoded.status().code() == outpost::StatusCode::kInvalidArgument);
    CHECK(encoded.status().message().find("KEYS") != std::string::npos);
    CHECK_FALSE(encode_properties({{"", "v"}}).is_ok());
}

TEST_CASE("a pair without a name fails to decode") {
    CHECK_FALSE(decode_properties("novalue\x02").is_ok());
    CHECK_FALSE(decode_properties("\x01value\x02").is_ok());
}

// Found by fuzz/rocketmq_properties.cpp: "A\x01x\x01y" decoded to a value
// holding 0x01, which encode_properties then refused; and a repeated name
// kept the last value where other readers keep the first.
TEST_CASE("decoded properties never hold a separator byte nor a name twice") {
    auto extra_separator = decode_properties("A\x01x\x01y\x02");
    REQUIRE_FALSE(extra_separator.is_ok());
    CHECK(extra_separator.status().code() == outpost::StatusCode::kInvalidArgument);
    auto repeated = decode_properties("KEYS\x01one\x02KEYS\x01two\x02");
    REQUIRE_FALSE(repeated.is_ok());
    CHECK(repeated.status().message().find("KEYS") != std::string::npos);
}
