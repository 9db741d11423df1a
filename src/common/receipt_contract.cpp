#include "common/receipt_contract.h"

#include <nlohmann/json.hpp>

#include "common/strict_json.h"
#include "common/uuid.h"

namespace outpost::receipt {
namespace {

bool is_lower_case(const std::string& text) {
    for (char c : text) {
        if (c >= 'A' && c <= 'Z') return false;
    }
    return true;
}

bool is_event_id(const std::string& text) {
    return is_canonical_uuid(text) && is_lower_case(text);
}

bool is_code(const std::string& text) {
    if (text.empty() || text.size() > kMaxCodeBytes) return false;
    for (char c : text) {
        const bool allowed = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
        if (!allowed) return false;
    }
    return true;
}

bool is_control(unsigned char c) {
    return c < 0x20 || c == 0x7f;
}

bool has_control(const std::string& text) {
    for (char c : text) {
        if (is_control(static_cast<unsigned char>(c))) return true;
    }
    return false;
}

// `text` on one line and at most kMaxTextBytes, cut before a UTF-8
// continuation byte never inside a character.
std::string fitted_text(const std::string& text) {
    std::string line = text;
    for (char& c : line) {
        if (is_control(static_cast<unsigned char>(c))) c = ' ';
    }
    if (line.size() <= kMaxTextBytes) return line;
    std::size_t cut = kMaxTextBytes;
    while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;
    return line.substr(0, cut);
}

// The members "eventIds" (when present) into `receipt`.
std::optional<Malformed> read_event_ids(const nlohmann::json& ids, Receipt& receipt) {
    if (!ids.is_array()) return Malformed{"receipt eventIds is not an array"};
    for (const nlohmann::json& id : ids) {
        if (!id.is_string()) return Malformed{"receipt eventId is not a string"};
        const std::string& text = id.get_ref<const std::string&>();
        if (!is_event_id(text)) {
            return Malformed{"receipt eventId is not a lower-case canonical UUID"};
        }
        receipt.event_ids.push_back(text);
    }
    return std::nullopt;
}

std::optional<Malformed> read_rejections(const nlohmann::json& entries, Receipt& receipt) {
    if (!entries.is_array()) return Malformed{"receipt rejected is not an array"};
    if (entries.size() > kMaxRejections) {
        return Malformed{"receipt carries " + std::to_string(entries.size()) +
                         " rejections (at most " + std::to_string(kMaxRejections) + ")"};
    }
    for (const nlohmann::json& entry : entries) {
        if (!entry.is_object()) return Malformed{"receipt rejection is not an object"};
        const auto id = entry.find("eventId");
        const auto code = entry.find("code");
        const auto text = entry.find("text");
        if (id == entry.end() || !id->is_string() || !is_event_id(id->get<std::string>())) {
            return Malformed{"receipt rejection has no lower-case canonical UUID eventId"};
        }
        if (code == entry.end() || !code->is_string() || !is_code(code->get<std::string>())) {
            return Malformed{"receipt rejection has no code of 1 to " +
                             std::to_string(kMaxCodeBytes) + " characters [a-z0-9_]"};
        }
        // C2: a rejection's other members are ignored; text may be absent.
        Rejection rejection{id->get<std::string>(), code->get<std::string>(), ""};
        if (text != entry.end()) {
            if (!text->is_string()) return Malformed{"receipt rejection text is not a string"};
            rejection.text = text->get<std::string>();
            if (rejection.text.size() > kMaxTextBytes || has_control(rejection.text)) {
                return Malformed{"receipt rejection text is over " +
                                 std::to_string(kMaxTextBytes) +
                                 " bytes or holds a control character"};
            }
        }
        receipt.rejected.push_back(std::move(rejection));
    }
    return std::nullopt;
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
    nlohmann::json document = {{"v", kConfirmVersion}, {"eventIds", event_ids}};
    return document.dump();
}

std::string render_rejections(const std::vector<Rejection>& rejections) {
    nlohmann::json entries = nlohmann::json::array();
    for (const Rejection& rejection : rejections) {
        entries.push_back({{"eventId", rejection.event_id},
                           {"code", rejection.code},
                           {"text", fitted_text(rejection.text)}});
    }
    // C1: rejections alone, so a gateway that refuses version 2 loses no
    // confirmation with them. Invalid UTF-8 in a text is replaced, not thrown.
    nlohmann::json document = {{"v", kRejectVersion}, {"rejected", entries}};
    return document.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::variant<Receipt, Malformed> parse(const std::string& payload) {
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
    const auto version = document.find("v");
    if (version == document.end() || !version->is_number_integer() || *version < 1) {
        return Malformed{"receipt has no version \"v\" (an integer from 1)"};
    }
    if (*version > kNewestVersion) {  // C3
        return Malformed{"receipt version " + version->dump() + " is newer than " +
                             std::to_string(kNewestVersion) + ", the newest this gateway reads",
                         true};
    }
    // C2: members other than these are ignored.
    Receipt receipt;
    const auto ids = document.find("eventIds");
    const auto rejected = document.find("rejected");
    if (ids != document.end()) {
        if (auto malformed = read_event_ids(*ids, receipt)) return *malformed;
    }
    // "rejected" is a member of version 2: in a version 1 message it is
    // unknown, and ignored like any other (C2).
    if (rejected != document.end() && *version >= kRejectVersion) {
        if (auto malformed = read_rejections(*rejected, receipt)) return *malformed;
    }
    const std::size_t named = receipt.event_ids.size() + receipt.rejected.size();
    if (named == 0 || named > kMaxReceiptIds) {
        return Malformed{"receipt names " + std::to_string(named) + " events (1 to " +
                         std::to_string(kMaxReceiptIds) + " allowed)"};
    }
    return receipt;
}

}  // namespace outpost::receipt
