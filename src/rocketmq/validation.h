// Limits the broker enforces, checked before anything goes on the wire so the
// caller gets a precise kInvalidArgument instead of a MESSAGE_ILLEGAL later.
#ifndef OUTPOST_ROCKETMQ_VALIDATION_H
#define OUTPOST_ROCKETMQ_VALIDATION_H

#include <cstddef>
#include <string_view>

#include "outpost/status.h"

namespace outpost::rocketmq {

constexpr std::size_t kMaxTopicLength = 127;
constexpr std::size_t kMaxBodyBytes = 4u * 1024u * 1024u;

// OK when `topic` matches ^[%|a-zA-Z0-9_-]+$ and has at most 127 characters.
// MQTT topics ("site/1/alarm") must be mapped to such a name first.
Status validate_topic(std::string_view topic);

// OK when the body has 1 to kMaxBodyBytes bytes (the broker refuses empty bodies).
Status validate_body(std::string_view body);

}  // namespace outpost::rocketmq

#endif  // OUTPOST_ROCKETMQ_VALIDATION_H
