#include "common/receipt_contract.h"

#include <nlohmann/json.hpp>

#include "common/strict_json.h"
#include "common/uuid.h"

namespace outpost::receipt {
namespace {

// {"v":1,"eventIds":[...]} nests two deep.
constexpr int kMaxDepth = 2;

bool is_lower_case(const std::string& text) {
    for (char c : text) {
        if (c >= 'A' && c <= 'Z') return false;
    }
    return true;
}

}  // namespace

std::string topic_for_prefix(const std::string& gateway_prefix) {
    return gateway_prefix + kTopicLevel;
}

std::optional<std::string> topic_for_event(const std::string& event_topic, int gateway_level) {
    if (gateway_level < 0) return std::nullopt;
    std::size_t start = 0;
    for (int level = 0; level < gateway_level; ++level) {
        const std::size_t slash = event_topic.find('/', start);
        if (slash == std::string::npos) return std::nullopt;
        start = slash + 1;
    }
    const std::size_t end = event_topic.find('/', start);
    if (end == start || start >= event_topic.size()) return std::nullopt;
    const std::size_t cut = end == std::string::npos ? event_topic.size() : end;
    return event_topic.substr(0, cut) + "/" + kTopicLevel;
}

std::string render(const std::vector<std::string>& event_ids) {
    nlohmann::json document = {{"v", kVersion}, {"eventIds", event_ids}};
    return document.dump();
}

std::variant<std::vector<std::string>, Malformed> parse(const std::string& payload) {
    if (payload.size() > kMaxReceiptBytes) {
        return Malformed{"receipt of " + std::to_string(payload.size()) + " bytes exceeds " +
                         std::to_string(kMaxReceiptBytes)};
    }
    auto parsed = parse_strict_json(payload, kMaxDepth);
    if (const auto* refusal = std::get_if<JsonRefusal>(&parsed)) {
        return Malformed{"receipt is not JSON: " + refusal->detail};
    }
    const nlohmann::json& document = std::get<nlohmann::json>(parsed);
    if (!document.is_object()) return Malformed{"receipt is not a JSON object"};
    for (auto member = document.begin(); member != document.end(); ++member) {
        if (member.key() != "v" && member.key() != "eventIds") {
            return Malformed{"receipt has an unknown member \"" + member.key() + "\""};
        }
    }
    const auto version = document.find("v");
    if (version == document.end() || !version->is_number_integer() || *version != kVersion) {
        return Malformed{"receipt version is not 1"};
    }
    const auto ids = document.find("eventIds");
    if (ids == document.end() || !ids->is_array()) {
        return Malformed{"receipt has no eventIds array"};
    }
    if (ids->empty() || ids->size() > kMaxReceiptIds) {
        return Malformed{"receipt carries " + std::to_string(ids->size()) + " eventIds (1 to " +
                         std::to_string(kMaxReceiptIds) + " allowed)"};
    }
    std::vector<std::string> event_ids;
    event_ids.reserve(ids->size());
    for (const nlohmann::json& id : *ids) {
        if (!id.is_string()) return Malformed{"receipt eventId is not a string"};
        const std::string& text = id.get_ref<const std::string&>();
        if (!is_canonical_uuid(text) || !is_lower_case(text)) {
            return Malformed{"receipt eventId is not a lower-case canonical UUID"};
        }
        event_ids.push_back(text);
    }
    return event_ids;
}

}  // namespace outpost::receipt
