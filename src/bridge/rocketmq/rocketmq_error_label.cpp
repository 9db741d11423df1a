#include "bridge/rocketmq/rocketmq_error_label.h"

#include "rocketmq/codes.h"

namespace outpost::bridge {

RocketMqErrorLabel RocketMqErrorLabel::from_key(const std::string& key) {
    const std::string::size_type colon = key.find(':');
    if (colon == std::string::npos) return {"none", key};
    return {key.substr(0, colon), key.substr(colon + 1)};
}

RocketMqErrorLabel rocketmq_error_label(StatusCode failure,
                                        std::optional<std::int32_t> response_code) {
    if (!response_code) return {"none", status_code_name(failure)};
    if (!rocketmq::is_known_response_code(*response_code)) {
        return {"other", rocketmq::response_code_name(*response_code)};
    }
    return {std::to_string(*response_code), rocketmq::response_code_name(*response_code)};
}

}  // namespace outpost::bridge
