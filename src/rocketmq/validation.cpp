#include "rocketmq/validation.h"

#include <string>

namespace outpost::rocketmq {
namespace {

bool is_topic_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '%' ||
           c == '|' || c == '_' || c == '-';
}

}  // namespace

Status validate_topic(std::string_view topic) {
    if (topic.empty()) {
        return Status::error(StatusCode::kInvalidArgument, "RocketMQ topic is empty");
    }
    if (topic.size() > kMaxTopicLength) {
        return Status::error(StatusCode::kInvalidArgument,
                             "RocketMQ topic has " + std::to_string(topic.size()) +
                                 " characters; at most 127 are allowed");
    }
    for (char c : topic) {
        if (!is_topic_char(c)) {
            return Status::error(StatusCode::kInvalidArgument,
                                 "RocketMQ topic \"" + std::string(topic) +
                                     "\" may only contain letters, digits, '%', '|', '_' and '-'");
        }
    }
    return Status::ok();
}

Status validate_body(std::string_view body) {
    if (body.empty()) {
        return Status::error(StatusCode::kInvalidArgument, "message body is empty");
    }
    if (body.size() > kMaxBodyBytes) {
        return Status::error(StatusCode::kInvalidArgument, "message body has " +
                                                               std::to_string(body.size()) +
                                                               " bytes; at most 4 MiB are allowed");
    }
    return Status::ok();
}

}  // namespace outpost::rocketmq
