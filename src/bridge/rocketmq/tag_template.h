// RocketMQ tags from the envelope, by configuration: "${payload.severity}",
// "${eventType}", or literal text around placeholders ("sev-${payload.severity}").
#ifndef OUTPOST_BRIDGE_ROCKETMQ_TAG_TEMPLATE_H
#define OUTPOST_BRIDGE_ROCKETMQ_TAG_TEMPLATE_H

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "outpost/status.h"

namespace outpost::bridge {

class TagTemplate final {
  public:
    // Longest tag rendered; longer results are cut.
    static constexpr std::size_t kMaxTagLength = 128;

    // Compiles `text`. Literal text may use [A-Za-z0-9._-]; a placeholder is
    // ${name} or ${name.name...} with names of [A-Za-z0-9_]. Fails with
    // kInvalidArgument naming the position ("unclosed ${ at 4").
    static Result<TagTemplate> compile(const std::string& text);

    // The tag for `envelope`. A placeholder renders a string field as is, a
    // number or boolean in JSON form, and an absent, null, object or array
    // field as "". Characters outside [A-Za-z0-9._-] become '_' (a tag must
    // not carry RocketMQ's separators or "||"), and the result is cut to
    // kMaxTagLength. Never throws.
    std::string render(const nlohmann::json& envelope) const;

    const std::string& text() const { return text_; }

  private:
    struct Piece {
        std::string literal;            // used when path is empty
        std::vector<std::string> path;  // field names, outermost first
    };

    std::string text_;
    std::vector<Piece> pieces_;
};

// True for the characters a rendered tag may keep: [A-Za-z0-9._-].
bool is_tag_char(char c);

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_ROCKETMQ_TAG_TEMPLATE_H
