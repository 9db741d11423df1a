#include "rocketmq/properties.h"

#include <utility>

namespace outpost::rocketmq {
namespace {

constexpr char kNameValueSeparator = '\x01';
constexpr char kPropertySeparator = '\x02';

bool has_separator(std::string_view text) {
    return text.find(kNameValueSeparator) != std::string_view::npos ||
           text.find(kPropertySeparator) != std::string_view::npos;
}

}  // namespace

Result<std::string> encode_properties(const std::map<std::string, std::string>& properties) {
    std::string out;
    for (const auto& [name, value] : properties) {
        if (name.empty() || has_separator(name) || has_separator(value)) {
            return Status::error(StatusCode::kInvalidArgument,
                                 "message property \"" + name +
                                     "\" is empty or contains the control bytes 0x01/0x02");
        }
        out += name;
        out += kNameValueSeparator;
        out += value;
        out += kPropertySeparator;
    }
    return out;
}

Result<std::map<std::string, std::string>> decode_properties(std::string_view encoded) {
    std::map<std::string, std::string> properties;
    while (!encoded.empty()) {
        std::size_t end = encoded.find(kPropertySeparator);
        std::string_view pair = encoded.substr(0, end);
        encoded = end == std::string_view::npos ? std::string_view() : encoded.substr(end + 1);
        std::size_t split = pair.find(kNameValueSeparator);
        if (split == std::string_view::npos || split == 0) {
            return Status::error(StatusCode::kInvalidArgument,
                                 "message properties hold a pair without a name");
        }
        const std::string_view value = pair.substr(split + 1);
        if (value.find(kNameValueSeparator) != std::string_view::npos) {
            return Status::error(StatusCode::kInvalidArgument,
                                 "message properties hold a pair with two 0x01 separators");
        }
        // Readers differ on a repeated name (first or last wins): refuse it.
        const std::string name(pair.substr(0, split));
        if (!properties.emplace(name, std::string(value)).second) {
            return Status::error(StatusCode::kInvalidArgument,
                                 "message properties repeat the name \"" + name + "\"");
        }
    }
    return properties;
}

}  // namespace outpost::rocketmq
