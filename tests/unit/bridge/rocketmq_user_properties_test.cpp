// The producer extension the bridge needs: user properties on a message.
#include <catch2/catch.hpp>

#include "rocketmq/properties.h"
#include "rocketmq/send_message.h"

using namespace outpost::rocketmq;

namespace {

OutgoingMessage message_with(std::map<std::string, std::string> properties) {
    OutgoingMessage message{"outpost_quarantine", "schema_violation", "q-1", "{}", "", "UNIQ"};
    message.user_properties = std::move(properties);
    return message;
}

}  // namespace

TEST_CASE("user properties travel in the properties field next to the system ones") {
    auto request = build_send_request(
        "group", message_with({{"OUTPOST_REASON", "schema_violation"}, {"OUTPOST_DETAIL", "seq"}}),
        MessageQueue{"broker-a", 0}, 1);
    REQUIRE(request.is_ok());
    auto decoded = decode_properties(request->ext_fields.at("properties"));
    REQUIRE(decoded.is_ok());
    CHECK(decoded->at("OUTPOST_REASON") == "schema_violation");
    CHECK(decoded->at("OUTPOST_DETAIL") == "seq");
    CHECK(decoded->at("TAGS") == "schema_violation");
    CHECK(decoded->at("KEYS") == "q-1");
}

TEST_CASE("reserved or malformed user property names are refused before sending") {
    for (const char* name : {"KEYS", "TAGS", "UNIQ_KEY", "__SHARDINGKEY", "DELAY", "WAIT"}) {
        INFO(name);
        auto request = build_send_request("group", message_with({{name, "x"}}),
                                          MessageQueue{"broker-a", 0}, 1);
        REQUIRE_FALSE(request.is_ok());
        CHECK(request.status().message().find("reserved") != std::string::npos);
    }
    auto empty_name =
        build_send_request("group", message_with({{"", "x"}}), MessageQueue{"broker-a", 0}, 1);
    CHECK_FALSE(empty_name.is_ok());
    auto separator = build_send_request("group", message_with({{"A", "x\x01y"}}),
                                        MessageQueue{"broker-a", 0}, 1);
    CHECK_FALSE(separator.is_ok());
}
