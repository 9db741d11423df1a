// Tags come from configuration templates over the envelope.
#include "bridge/rocketmq/tag_template.h"

#include <catch2/catch.hpp>

#include "sample_envelope.h"

using namespace outpost::bridge;
using outpost::testing::sample_envelope;

namespace {

std::string render(const std::string& text, const nlohmann::json& envelope) {
    auto compiled = TagTemplate::compile(text);
    REQUIRE(compiled.is_ok());
    return compiled->render(envelope);
}

const nlohmann::json kEnvelope =
    sample_envelope("gw-1", "dev-1", 7, "0190a1b2-c3d4-7e5f-8a6b-7c8d9e0f1a2b", "major");

}  // namespace

TEST_CASE("placeholders render envelope fields, nested ones by path") {
    CHECK(render("${payload.severity}", kEnvelope) == "major");
    CHECK(render("${eventType}", kEnvelope) == "ALARM_RAISED");
    CHECK(render("sev-${payload.severity}.${eventType}", kEnvelope) == "sev-major.ALARM_RAISED");
    CHECK(render("${seq}", kEnvelope) == "7");
    CHECK(render("${payload.value}", kEnvelope) == "97.5");
    CHECK(render("fixed", kEnvelope) == "fixed");
    CHECK(render("", kEnvelope).empty());
}

TEST_CASE("absent, null and structured fields render as empty") {
    CHECK(render("${payload.missing}", kEnvelope).empty());
    CHECK(render("x${payload.severity.deeper}y", kEnvelope) == "xy");
    CHECK(render("${payload}", kEnvelope).empty());
    nlohmann::json with_null = kEnvelope;
    with_null["payload"]["severity"] = nullptr;
    CHECK(render("${payload.severity}", with_null).empty());
}

TEST_CASE("rendered tags keep only [A-Za-z0-9._-] and are bounded") {
    nlohmann::json envelope = kEnvelope;
    envelope["payload"]["text"] = "a||b c\x01";
    CHECK(render("${payload.text}", envelope) == "a__b_c_");
    envelope["payload"]["text"] = std::string(500, 'x');
    CHECK(render("${payload.text}", envelope).size() == TagTemplate::kMaxTagLength);
}

TEST_CASE("bad templates are refused with the position") {
    for (const char* bad :
         {"${", "${payload.severity", "${}", "${a..b}", "${a b}", "a b", "x||y", "${payload.}"}) {
        INFO(bad);
        auto compiled = TagTemplate::compile(bad);
        REQUIRE_FALSE(compiled.is_ok());
        CHECK(compiled.status().message().find("position") != std::string::npos);
    }
}
