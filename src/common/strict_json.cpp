#include "common/strict_json.h"

#include <exception>
#include <optional>
#include <set>
#include <vector>

namespace outpost {

std::variant<nlohmann::json, JsonRefusal> parse_strict_json(const std::string& text,
                                                            int max_depth) {
    using nlohmann::json;
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) {
        return JsonRefusal{JsonRefusal::Kind::kByteOrderMark,
                           "starts with a UTF-8 byte-order mark (RFC 8259: must not be added)"};
    }
    std::optional<JsonRefusal> refusal;
    // The keys seen so far in each object being parsed, innermost last.
    std::vector<std::set<std::string>> open_objects;
    // `depth` is the nesting of the container being opened, minus one.
    // Returning false discards the value: once refused, nothing more is built.
    json::parser_callback_t check = [&](int depth, json::parse_event_t event, json& parsed) {
        if (refusal) return false;
        switch (event) {
            case json::parse_event_t::object_start:
            case json::parse_event_t::array_start:
                if (depth + 1 > max_depth) {
                    refusal = JsonRefusal{
                        JsonRefusal::Kind::kTooDeep,
                        "nests objects/arrays deeper than " + std::to_string(max_depth)};
                    return false;
                }
                if (event == json::parse_event_t::object_start) open_objects.emplace_back();
                return true;
            case json::parse_event_t::key:
                if (!open_objects.back().insert(parsed.get<std::string>()).second) {
                    refusal = JsonRefusal{
                        JsonRefusal::Kind::kDuplicateKey,
                        "repeats key \"" + parsed.get<std::string>() + "\" in one object"};
                    return false;
                }
                return true;
            case json::parse_event_t::object_end:
                open_objects.pop_back();
                return true;
            default:
                return true;
        }
    };
    try {
        json document = json::parse(text, check, /*allow_exceptions=*/false);
        if (refusal) return *refusal;
        if (document.is_discarded()) {
            return JsonRefusal{JsonRefusal::Kind::kMalformed, "is not one valid JSON value"};
        }
        return document;
    } catch (const std::exception& error) {
        return JsonRefusal{JsonRefusal::Kind::kMalformed,
                           std::string("could not be parsed: ") + error.what()};
    }
}

}  // namespace outpost
