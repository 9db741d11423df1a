#include "rocketmq/admin.h"

#include <algorithm>
#include <thread>

#include "rocketmq/codes.h"
#include "rocketmq/connection.h"
#include "rocketmq/validation.h"

namespace outpost::rocketmq {

Status create_topic(const std::string& broker_address, const TopicSpec& spec,
                    std::chrono::milliseconds timeout, const ClientSecurity& security) {
    Status valid = validate_topic(spec.name);
    if (!valid.is_ok()) {
        return valid;
    }
    if (spec.read_queue_count < 1 || spec.write_queue_count < 1 || spec.read_queue_count > 1024 ||
        spec.write_queue_count > 1024) {
        return Status::error(StatusCode::kInvalidArgument,
                             "topic " + spec.name + " needs 1 to 1024 read and write queues");
    }
    RemotingCommand request;
    request.code = kRequestUpdateAndCreateTopic;
    request.version = kRemotingVersion;
    request.ext_fields["topic"] = spec.name;
    request.ext_fields["defaultTopic"] = kAutoCreateTopicTemplate;
    request.ext_fields["readQueueNums"] = std::to_string(spec.read_queue_count);
    request.ext_fields["writeQueueNums"] = std::to_string(spec.write_queue_count);
    request.ext_fields["perm"] = std::to_string(spec.perm);
    request.ext_fields["topicFilterType"] = "SINGLE_TAG";
    request.ext_fields["topicSysFlag"] = "0";
    request.ext_fields["order"] = "false";
    Connection broker(broker_address, 1, security);
    Result<RemotingCommand> response = broker.invoke(std::move(request), timeout);
    if (!response.is_ok()) {
        return response.status().with_context("create topic " + spec.name);
    }
    if (response->code != kResponseSuccess) {
        return Status::error(StatusCode::kRejected,
                             "broker " + broker_address + " refused to create topic " + spec.name +
                                 ": " + response_code_name(response->code) + " (" +
                                 std::to_string(response->code) + ") " + response->remark);
    }
    return Status::ok();
}

Status wait_for_topic_route(const std::string& name_server_address, const std::string& topic,
                            std::chrono::milliseconds timeout, const ClientSecurity& security) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    Connection name_server(name_server_address, 1, security);
    Status last = Status::error(StatusCode::kTimeout, "no lookup finished");
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            return Status::error(
                StatusCode::kTimeout,
                "route of topic " + topic + " did not appear in time; last: " + last.to_string());
        }
        Result<TopicRoute> route = query_topic_route(name_server, topic, left);
        if (route.is_ok() && !route->write_queues().empty()) {
            return Status::ok();
        }
        if (!route.is_ok() && (route.status().code() == StatusCode::kInvalidArgument ||
                               route.status().code() == StatusCode::kPermissionDenied)) {
            return route.status();
        }
        last = route.is_ok() ? Status::error(StatusCode::kUnavailable, "no writable queue yet")
                             : route.status();
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
}

}  // namespace outpost::rocketmq
