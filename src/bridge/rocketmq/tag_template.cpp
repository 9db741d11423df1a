#include "bridge/rocketmq/tag_template.h"

#include <utility>

namespace outpost::bridge {
namespace {

bool is_name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

Status template_error(const std::string& text, const std::string& what, std::size_t at) {
    return Status::error(StatusCode::kInvalidArgument, "tag template \"" + text + "\": " + what +
                                                           " at position " + std::to_string(at));
}

// Splits "payload.severity" into its names; empty when a name is empty or
// holds a character outside [A-Za-z0-9_].
std::vector<std::string> field_path(const std::string& spec) {
    std::vector<std::string> path(1);
    for (char c : spec) {
        if (c == '.') {
            if (path.back().empty()) return {};
            path.emplace_back();
        } else if (is_name_char(c)) {
            path.back() += c;
        } else {
            return {};
        }
    }
    if (path.back().empty()) return {};
    return path;
}

std::string field_text(const nlohmann::json& envelope, const std::vector<std::string>& path) {
    const nlohmann::json* node = &envelope;
    for (const std::string& name : path) {
        if (!node->is_object()) return "";
        auto it = node->find(name);
        if (it == node->end()) return "";
        node = &*it;
    }
    if (node->is_string()) return node->get<std::string>();
    if (node->is_number() || node->is_boolean()) return node->dump();
    return "";
}

}  // namespace

bool is_tag_char(char c) {
    return is_name_char(c) || c == '.' || c == '-';
}

Result<TagTemplate> TagTemplate::compile(const std::string& text) {
    TagTemplate compiled;
    compiled.text_ = text;
    std::size_t at = 0;
    while (at < text.size()) {
        if (text.compare(at, 2, "${") == 0) {
            const std::size_t close = text.find('}', at + 2);
            if (close == std::string::npos) return template_error(text, "unclosed ${", at);
            std::vector<std::string> path = field_path(text.substr(at + 2, close - at - 2));
            if (path.empty()) {
                return template_error(text,
                                      "placeholder must name a field like payload.severity "
                                      "([A-Za-z0-9_] names joined by '.')",
                                      at);
            }
            compiled.pieces_.push_back(Piece{"", std::move(path)});
            at = close + 1;
            continue;
        }
        if (!is_tag_char(text[at])) {
            return template_error(text, "literal text may only use [A-Za-z0-9._-]", at);
        }
        if (compiled.pieces_.empty() || !compiled.pieces_.back().path.empty()) {
            compiled.pieces_.emplace_back();
        }
        compiled.pieces_.back().literal += text[at];
        ++at;
    }
    return compiled;
}

std::string TagTemplate::render(const nlohmann::json& envelope) const {
    std::string tag;
    for (const Piece& piece : pieces_) {
        tag += piece.path.empty() ? piece.literal : field_text(envelope, piece.path);
    }
    for (char& c : tag) {
        if (!is_tag_char(c)) c = '_';
    }
    if (tag.size() > kMaxTagLength) tag.resize(kMaxTagLength);
    return tag;
}

}  // namespace outpost::bridge
