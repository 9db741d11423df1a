// The receipt wire contract: the topic each side builds, a parse that reads
// confirmations (version 1) and rejections (version 2), ignores members it
// does not know and messages of newer versions, and refuses the rest.
#include "common/receipt_contract.h"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

using namespace outpost;

namespace {

const std::string kId = "018f0000-0000-7000-8000-000000000001";
const std::string kOtherId = "018f0000-0000-7000-8000-000000000002";

bool refused(const std::string& payload) {
    return std::holds_alternative<receipt::Malformed>(receipt::parse(payload));
}

receipt::Receipt read(const std::string& payload) {
    auto parsed = receipt::parse(payload);
    if (const auto* malformed = std::get_if<receipt::Malformed>(&parsed)) {
        FAIL_CHECK("refused: " << malformed->reason);
        return {};
    }
    return std::get<receipt::Receipt>(parsed);
}

// The parse of a gateway released before version 2, kept here word for
// word in behaviour: exactly the members "v" (1) and "eventIds".
bool parse_of_version_1_gateway_accepts(const std::string& payload) {
    auto document = nlohmann::json::parse(payload, nullptr, false);
    if (!document.is_object() || document.size() != 2) return false;
    auto version = document.find("v");
    return version != document.end() && version->is_number_integer() && *version == 1 &&
           document.contains("eventIds");
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
    const std::vector<std::string> ids = {kId, kOtherId};
    const std::string payload = receipt::render(ids);
    CHECK(payload == "{\"eventIds\":[\"" + ids[0] + "\",\"" + ids[1] + "\"],\"v\":1}");
    const receipt::Receipt parsed = read(payload);
    CHECK(parsed.event_ids == ids);
    CHECK(parsed.rejected.empty());
}

TEST_CASE("a rendered rejection parses back to its events, codes and texts") {
    const std::vector<receipt::Rejection> rejections = {
        {kId, "schema_violation", "member occurredAt: missing"},
        {kOtherId, "unmapped_topic", "no mapping rule matches outpost/gw/event/d"}};
    const receipt::Receipt parsed = read(receipt::render_rejections(rejections));
    CHECK(parsed.event_ids.empty());
    CHECK(parsed.rejected == rejections);
}

TEST_CASE("a rendered rejection text is one line, cut on a character boundary") {
    std::string text = "line one\nline two\t";
    while (text.size() < receipt::kMaxTextBytes + 10) text += "\xc3\xa9";  // é, two bytes
    const receipt::Receipt parsed =
        read(receipt::render_rejections({{kId, "schema_violation", "x" + text}}));
    REQUIRE(parsed.rejected.size() == 1);
    const std::string& fitted = parsed.rejected[0].text;
    CHECK(fitted.rfind("xline one line two ", 0) == 0);
    CHECK(fitted.size() <= receipt::kMaxTextBytes);
    CHECK(fitted.size() >= receipt::kMaxTextBytes - 1);
    CHECK((static_cast<unsigned char>(fitted.back()) & 0xC0) == 0x80);  // ends a whole é
}

TEST_CASE("a gateway of version 1 refuses a rejection whole, and every confirmation still reaches it") {
    // C1: confirmations stay version 1 and rejections never ride with them,
    // so the old gateway's strict parse drops only the rejection (the event
    // stays unconfirmed, as before negative receipts existed).
    CHECK(parse_of_version_1_gateway_accepts(receipt::render({kId})));
    CHECK_FALSE(parse_of_version_1_gateway_accepts(
        receipt::render_rejections({{kId, "schema_violation", "bad"}})));
}

TEST_CASE("a reader ignores members it does not know, in the message and in a rejection") {
    CHECK(read("{\"v\":1,\"eventIds\":[\"" + kId + "\"],\"bridge\":\"b-1\"}").event_ids ==
          std::vector<std::string>{kId});
    const receipt::Receipt parsed =
        read("{\"v\":2,\"rejected\":[{\"eventId\":\"" + kId +
             "\",\"code\":\"gateway_mismatch\",\"text\":\"t\",\"since\":{\"a\":1}}]}");
    REQUIRE(parsed.rejected.size() == 1);
    CHECK(parsed.rejected[0].code == "gateway_mismatch");
    // "rejected" belongs to version 2: a version 1 message's is unknown.
    CHECK(read("{\"v\":1,\"eventIds\":[\"" + kId + "\"],\"rejected\":7}").rejected.empty());
    // A rejection without text is still a rejection.
    CHECK(read("{\"v\":2,\"rejected\":[{\"eventId\":\"" + kId + "\",\"code\":\"x\"}]}")
              .rejected.size() == 1);
}

TEST_CASE("a message of a newer version is ignored whole, and said to be newer, not malformed") {
    auto parsed = receipt::parse("{\"v\":3,\"eventIds\":[\"" + kId + "\"],\"rejected\":[]}");
    REQUIRE(std::holds_alternative<receipt::Malformed>(parsed));
    CHECK(std::get<receipt::Malformed>(parsed).newer_version);
    auto broken = receipt::parse("{\"v\":1,\"eventIds\":[\"x\"]}");
    REQUIRE(std::holds_alternative<receipt::Malformed>(broken));
    CHECK_FALSE(std::get<receipt::Malformed>(broken).newer_version);
}

TEST_CASE("malformed receipts are refused with a reason") {
    CHECK(refused(""));
    CHECK(refused("not json"));
    CHECK(refused("[]"));
    CHECK(refused("{\"v\":1}"));
    CHECK(refused("{\"eventIds\":[\"" + kId + "\"]}"));
    CHECK(refused("{\"v\":0,\"eventIds\":[\"" + kId + "\"]}"));
    CHECK(refused("{\"v\":1.0,\"eventIds\":[\"" + kId + "\"]}"));
    CHECK(refused("{\"v\":1,\"eventIds\":[]}"));
    CHECK(refused("{\"v\":1,\"eventIds\":[7]}"));
    CHECK(refused("{\"v\":1,\"eventIds\":\"" + kId + "\"}"));
    CHECK(refused("{\"v\":1,\"eventIds\":[\"not-a-uuid\"]}"));
    CHECK(refused("{\"v\":1,\"eventIds\":[\"018F0000-0000-7000-8000-000000000001\"]}"));
    CHECK(refused("{\"v\":1,\"eventIds\":[\"" + kId + "\"],\"v\":1}"));  // repeated key
    CHECK(refused("{\"v\":1,\"eventIds\":[\"" + kId + "\"],\"x\":[[[[1]]]]}"));  // too deep
    CHECK(refused("{\"v\":2,\"rejected\":[]}"));
    CHECK(refused("{\"v\":2,\"rejected\":{}}"));
    CHECK(refused("{\"v\":2,\"rejected\":[{\"code\":\"x\"}]}"));
    CHECK(refused("{\"v\":2,\"rejected\":[{\"eventId\":\"" + kId + "\"}]}"));
    CHECK(refused("{\"v\":2,\"rejected\":[{\"eventId\":\"" + kId + "\",\"code\":\"Bad Code\"}]}"));
    CHECK(refused("{\"v\":2,\"rejected\":[{\"eventId\":\"" + kId +
                  "\",\"code\":\"x\",\"text\":\"a\\nb\"}]}"));
    CHECK(refused("{\"v\":2,\"rejected\":[{\"eventId\":\"" + kId +
                  "\",\"code\":\"x\",\"text\":\"" + std::string(receipt::kMaxTextBytes + 1, 'a') +
                  "\"}]}"));
    std::vector<std::string> too_many(receipt::kMaxReceiptIds + 1, kId);
    CHECK(refused(receipt::render(too_many)));
    std::vector<receipt::Rejection> too_many_rejections(receipt::kMaxRejections + 1,
                                                        {kId, "x", ""});
    CHECK(refused(receipt::render_rejections(too_many_rejections)));
    CHECK(refused(std::string(receipt::kMaxReceiptBytes + 1, ' ')));
    auto reason = receipt::parse("{\"v\":1,\"eventIds\":[\"x\"]}");
    CHECK(std::get<receipt::Malformed>(reason).reason.find("UUID") != std::string::npos);
}
