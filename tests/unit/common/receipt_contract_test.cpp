// The receipt wire contract (issue 11): the topic each side builds, and a
// parse that accepts exactly {"v":1,"eventIds":[lower-case UUIDs]}.
#include "common/receipt_contract.h"

#include <catch2/catch.hpp>
#include <string>
#include <variant>
#include <vector>

using namespace outpost;

namespace {

const std::string kId = "018f0000-0000-7000-8000-000000000001";

bool refused(const std::string& payload) {
    return std::holds_alternative<receipt::Malformed>(receipt::parse(payload));
}

}  // namespace

TEST_CASE("the bridge and the gateway name the same receipt topic, the gateway's own") {
    const auto from_event = receipt::topic_for_event("outpost/gw-7/alarm/pump-1", 1);
    REQUIRE(from_event);
    CHECK(*from_event == "outpost/gw-7/receipt");
    CHECK(*from_event == receipt::topic_for_prefix("outpost/gw-7/"));
    CHECK(*receipt::topic_for_event("site/a/gw-7/event/x", 2) == "site/a/gw-7/receipt");
    CHECK_FALSE(receipt::topic_for_event("outpost", 1));           // no such level
    CHECK_FALSE(receipt::topic_for_event("outpost//alarm/x", 1));  // empty gateway
    CHECK_FALSE(receipt::topic_for_event("outpost/gw", -1));
}

TEST_CASE("a rendered receipt parses back to its ids") {
    const std::vector<std::string> ids = {kId, "018f0000-0000-7000-8000-000000000002"};
    const std::string payload = receipt::render(ids);
    CHECK(payload == "{\"eventIds\":[\"" + ids[0] + "\",\"" + ids[1] + "\"],\"v\":1}");
    auto parsed = receipt::parse(payload);
    REQUIRE(std::holds_alternative<std::vector<std::string>>(parsed));
    CHECK(std::get<std::vector<std::string>>(parsed) == ids);
}

TEST_CASE("malformed receipts are refused with a reason") {
    CHECK(refused(""));
    CHECK(refused("not json"));
    CHECK(refused("[]"));
    CHECK(refused("{\"v\":1}"));
    CHECK(refused("{\"v\":2,\"eventIds\":[\"" + kId + "\"]}"));
    CHECK(refused("{\"v\":1.0,\"eventIds\":[\"" + kId + "\"]}"));
    CHECK(refused("{\"v\":1,\"eventIds\":[]}"));
    CHECK(refused("{\"v\":1,\"eventIds\":[7]}"));
    CHECK(refused("{\"v\":1,\"eventIds\":[\"not-a-uuid\"]}"));
    CHECK(refused("{\"v\":1,\"eventIds\":[\"018F0000-0000-7000-8000-000000000001\"]}"));
    CHECK(refused("{\"v\":1,\"eventIds\":[\"" + kId + "\"],\"extra\":true}"));
    CHECK(refused("{\"v\":1,\"eventIds\":[\"" + kId + "\"],\"v\":1}"));  // repeated key
    CHECK(refused("{\"v\":1,\"eventIds\":[[\"" + kId + "\"]]}"));        // too deep
    std::vector<std::string> too_many(receipt::kMaxReceiptIds + 1, kId);
    CHECK(refused(receipt::render(too_many)));
    CHECK(refused(std::string(receipt::kMaxReceiptBytes + 1, ' ')));
    auto reason = receipt::parse("{\"v\":1,\"eventIds\":[\"x\"]}");
    CHECK(std::get<receipt::Malformed>(reason).reason.find("UUID") != std::string::npos);
}
