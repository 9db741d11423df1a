#include "rocketmq/broker_config.h"

#include <utility>

#include "rocketmq/codes.h"
#include "rocketmq/frame.h"

namespace outpost::rocketmq {

Result<BrokerSettings> parse_broker_settings(std::string_view body) {
    BrokerSettings settings;
    std::size_t line_number = 0;
    while (!body.empty()) {
        ++line_number;
        const std::size_t end = body.find('\n');
        std::string_view line = body.substr(0, end);
        body.remove_prefix(end == std::string_view::npos ? body.size() : end + 1);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line.empty()) continue;
        const std::size_t equals = line.find('=');
        if (equals == std::string_view::npos || equals == 0) {
            return Status::error(StatusCode::kInvalidArgument,
                                 "broker configuration line " + std::to_string(line_number) +
                                     " is not key=value");
        }
        std::string key(line.substr(0, equals));
        if (!settings.emplace(key, std::string(line.substr(equals + 1))).second) {
            return Status::error(StatusCode::kInvalidArgument,
                                 "broker configuration names " + key + " twice");
        }
    }
    return settings;
}

Result<BrokerSettings> query_broker_settings(Connection& broker, std::chrono::milliseconds timeout,
                                             std::optional<std::int32_t>* refused_code) {
    RemotingCommand request;
    request.code = kRequestGetBrokerConfig;
    request.version = kRemotingVersion;
    Result<RemotingCommand> response = broker.invoke(std::move(request), timeout);
    if (!response.is_ok()) {
        return response.status().with_context("configuration of broker " + broker.address());
    }
    if (response->code != kResponseSuccess) {
        if (refused_code != nullptr) *refused_code = response->code;
        return Status::error(StatusCode::kRejected,
                             "broker " + broker.address() + " refused to show its configuration: " +
                                 response_code_name(response->code) + " (" +
                                 std::to_string(response->code) + ") " + response->remark);
    }
    return parse_broker_settings(response->body);
}

}  // namespace outpost::rocketmq
