// The strict JSON parse: what it refuses that nlohmann alone would take
// (a repeated key, a byte-order mark), and its depth bound.
#include "common/strict_json.h"

#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <variant>

using outpost::JsonRefusal;
using outpost::parse_strict_json;
using Kind = outpost::JsonRefusal::Kind;
using nlohmann::json;

namespace {

std::optional<Kind> refusal_of(const std::string& text, int max_depth = 16) {
    auto parsed = parse_strict_json(text, max_depth);
    if (const auto* refusal = std::get_if<JsonRefusal>(&parsed)) {
        CHECK_FALSE(refusal->detail.empty());
        CHECK(refusal->detail.find('\n') == std::string::npos);
        return refusal->kind;
    }
    return std::nullopt;
}

std::string nested(int depth) {
    std::string text;
    for (int i = 0; i < depth; ++i) text += "{\"a\":";
    text += "1";
    for (int i = 0; i < depth; ++i) text += "}";
    return text;
}

}  // namespace

TEST_CASE("a key repeated in one object is refused, at any depth, and names the key") {
    // nlohmann alone keeps the last of the three.
    const std::string three = R"({"eventId":"a","eventId":"b","eventId":"c"})";
    REQUIRE(json::parse(three)["eventId"] == "c");
    auto parsed = parse_strict_json(three, 16);
    REQUIRE(std::holds_alternative<JsonRefusal>(parsed));
    CHECK(std::get<JsonRefusal>(parsed).kind == Kind::kDuplicateKey);
    CHECK(std::get<JsonRefusal>(parsed).detail.find("eventId") != std::string::npos);

    CHECK(refusal_of(R"({"a":1,"a":1})") == Kind::kDuplicateKey);  // even with equal values
    CHECK(refusal_of(R"({"p":{"x":1,"y":2,"x":3}})") == Kind::kDuplicateKey);
    CHECK(refusal_of(R"([{"x":1},{"x":2,"x":2}])") == Kind::kDuplicateKey);
    CHECK(refusal_of(R"({"\u0061":1,"a":2})") == Kind::kDuplicateKey);  // the same key, escaped
}

TEST_CASE("the same key in different objects is fine") {
    CHECK_FALSE(refusal_of(R"({"x":1,"p":{"x":2,"q":{"x":3}},"l":[{"x":4},{"x":5}]})"));
    CHECK_FALSE(refusal_of(R"({"a":{"b":1},"b":{"a":1}})"));
    CHECK_FALSE(refusal_of(R"({"a":1,"A":2,"a ":3})"));
}

TEST_CASE("a UTF-8 byte-order mark before the JSON is refused") {
    REQUIRE_FALSE(
        json::parse("\xEF\xBB\xBF{}", nullptr, false).is_discarded());  // nlohmann skips it
    CHECK(refusal_of("\xEF\xBB\xBF{}") == Kind::kByteOrderMark);
    CHECK(refusal_of("\xEF\xBB\xBF") == Kind::kByteOrderMark);
    CHECK(refusal_of(" \xEF\xBB\xBF{}") == Kind::kMalformed);  // anywhere else it is no JSON
    CHECK_FALSE(refusal_of("{\"bom\":\"\xEF\xBB\xBF\"}"));     // inside a string it is text
}

TEST_CASE("what is not one JSON value is malformed") {
    CHECK(refusal_of("") == Kind::kMalformed);
    CHECK(refusal_of("{") == Kind::kMalformed);
    CHECK(refusal_of("{} {}") == Kind::kMalformed);
    CHECK(refusal_of("{\"a\":1e400}") == Kind::kMalformed);                   // beyond double range
    CHECK(refusal_of("{\"a\":\"\\ud800\"}") == Kind::kMalformed);             // a lone surrogate
    CHECK(refusal_of(std::string("{\"a\":\"\0\"}", 8)) == Kind::kMalformed);  // raw NUL
}

TEST_CASE("the depth bound counts containers: {} is 1, {\"a\":{}} is 2") {
    CHECK_FALSE(refusal_of(nested(3), 3));
    CHECK(refusal_of(nested(4), 3) == Kind::kTooDeep);
    CHECK_FALSE(refusal_of("[[1],[2]]", 2));
    CHECK(refusal_of("[[[1]]]", 2) == Kind::kTooDeep);
    CHECK_FALSE(refusal_of("7", 1));
    // 200k open brackets: refused without recursion or a deep tree.
    CHECK(refusal_of(std::string(200000, '['), 16) == Kind::kTooDeep);
}

TEST_CASE("a document that passes is the document nlohmann reads") {
    const std::string text = R"({"a":[1,2.5,"x",null,true,{"b":{}}],"c":-9223372036854775808})";
    auto parsed = parse_strict_json(text, 16);
    REQUIRE(std::holds_alternative<json>(parsed));
    CHECK(std::get<json>(parsed) == json::parse(text));
}
