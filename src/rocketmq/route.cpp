#include "rocketmq/route.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <exception>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <utility>
#include <variant>

#include "common/strict_json.h"
#include "rocketmq/codes.h"
#include "rocketmq/frame.h"

namespace outpost::rocketmq {
namespace {

Status bad_route(const std::string& what) {
    return Status::error(StatusCode::kInvalidArgument, "unusable topic route: " + what);
}

// Integers may arrive as numbers or, from lenient serializers, as strings.
bool to_int64(const nlohmann::json& value, std::int64_t* out) {
    if (value.is_number_integer()) {
        *out = value.get<std::int64_t>();
        return true;
    }
    if (value.is_string()) {
        const std::string& text = value.get_ref<const std::string&>();
        if (text.empty()) {
            return false;
        }
        char* end = nullptr;
        errno = 0;
        long long parsed = std::strtoll(text.c_str(), &end, 10);
        if (errno != 0 || end == nullptr || *end != '\0') {
            return false;
        }
        *out = parsed;
        return true;
    }
    return false;
}

std::int32_t int_member(const nlohmann::json& object, const char* name) {
    auto it = object.find(name);
    std::int64_t value = 0;
    if (it == object.end() || !to_int64(*it, &value) || value < 0 || value > 0x7FFFFFFF) {
        return 0;
    }
    return static_cast<std::int32_t>(value);
}

std::string string_member(const nlohmann::json& object, const char* name) {
    auto it = object.find(name);
    return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Result<TopicRoute> parse_checked(std::string_view json) {
    std::variant<nlohmann::json, JsonRefusal> parsed =
        parse_strict_json(std::string(json), kMaxJsonDepth);
    if (const JsonRefusal* refusal = std::get_if<JsonRefusal>(&parsed)) {
        return bad_route("body " + refusal->detail);
    }
    const nlohmann::json& root = std::get<nlohmann::json>(parsed);
    if (!root.is_object()) return bad_route("body is not a JSON object");
    TopicRoute route;
    std::set<std::string> broker_names;
    std::set<std::string> queue_names;
    auto brokers = root.find("brokerDatas");
    if (brokers != root.end() && brokers->is_array()) {
        for (const auto& entry : *brokers) {
            if (!entry.is_object()) {
                return bad_route("a brokerDatas entry is not an object");
            }
            BrokerData broker;
            broker.cluster = string_member(entry, "cluster");
            broker.broker_name = string_member(entry, "brokerName");
            if (broker.broker_name.empty()) {
                return bad_route("a broker has no brokerName");
            }
            if (!broker_names.insert(broker.broker_name).second) {
                return bad_route("brokerDatas names broker \"" + broker.broker_name + "\" twice");
            }
            auto addresses = entry.find("brokerAddrs");
            if (addresses != entry.end() && addresses->is_object()) {
                for (auto it = addresses->begin(); it != addresses->end(); ++it) {
                    std::int64_t id = 0;
                    if (to_int64(nlohmann::json(it.key()), &id) && it.value().is_string()) {
                        broker.addresses[id] = it.value().get<std::string>();
                    }
                }
            }
            route.brokers.push_back(std::move(broker));
        }
    }
    auto queues = root.find("queueDatas");
    if (queues != root.end() && queues->is_array()) {
        for (const auto& entry : *queues) {
            if (!entry.is_object()) {
                return bad_route("a queueDatas entry is not an object");
            }
            QueueData queue;
            queue.broker_name = string_member(entry, "brokerName");
            if (queue.broker_name.empty()) {
                return bad_route("a queue entry has no brokerName");
            }
            if (!queue_names.insert(queue.broker_name).second) {
                return bad_route("queueDatas names broker \"" + queue.broker_name + "\" twice");
            }
            queue.read_queue_count = int_member(entry, "readQueueNums");
            queue.write_queue_count = int_member(entry, "writeQueueNums");
            queue.perm = int_member(entry, "perm");
            for (const char* name : {"readQueueNums", "writeQueueNums"}) {
                if (int_member(entry, name) > kMaxQueueNums) {
                    return bad_route(std::string(name) + " of broker \"" + queue.broker_name +
                                     "\" exceeds " + std::to_string(kMaxQueueNums));
                }
            }
            route.queues.push_back(std::move(queue));
        }
    }
    return route;
}

}  // namespace

std::string TopicRoute::master_address(const std::string& broker_name) const {
    for (const BrokerData& broker : brokers) {
        if (broker.broker_name == broker_name) {
            auto it = broker.addresses.find(kMasterBrokerId);
            return it == broker.addresses.end() ? std::string() : it->second;
        }
    }
    return std::string();
}

std::vector<MessageQueue> TopicRoute::write_queues() const {
    std::vector<QueueData> sorted = queues;
    std::sort(sorted.begin(), sorted.end(),
              [](const QueueData& a, const QueueData& b) { return a.broker_name < b.broker_name; });
    std::vector<MessageQueue> result;
    for (const QueueData& queue : sorted) {
        if ((queue.perm & kPermWrite) == 0 || master_address(queue.broker_name).empty()) {
            continue;
        }
        for (std::int32_t id = 0; id < queue.write_queue_count; ++id) {
            result.push_back(MessageQueue{queue.broker_name, id});
        }
    }
    return result;
}

Result<TopicRoute> parse_topic_route(std::string_view json) {
    try {
        return parse_checked(json);
    } catch (const std::exception& e) {
        return bad_route(e.what());
    }
}

Result<TopicRoute> query_topic_route(Connection& name_server, const std::string& topic,
                                     std::chrono::milliseconds timeout,
                                     std::optional<std::int32_t>* refused_code) {
    RemotingCommand request;
    request.code = kRequestGetRouteInfoByTopic;
    request.version = kRemotingVersion;
    request.ext_fields["topic"] = topic;
    request.ext_fields["acceptStandardJsonOnly"] = "true";
    Result<RemotingCommand> response = name_server.invoke(std::move(request), timeout);
    if (!response.is_ok()) {
        return response.status().with_context("route lookup for topic " + topic);
    }
    if (response->code != kResponseSuccess && refused_code != nullptr) {
        *refused_code = response->code;
    }
    if (response->code == kResponseTopicNotExist) {
        return Status::error(
            StatusCode::kNotFound,
            "topic " + topic + " does not exist at name server " + name_server.address());
    }
    if (response->code != kResponseSuccess) {
        return Status::error(response->code == kResponseNoPermission ? StatusCode::kPermissionDenied
                                                                     : StatusCode::kUnavailable,
                             "name server " + name_server.address() + " refused the route of " +
                                 topic + ": " + response_code_name(response->code) + " (" +
                                 std::to_string(response->code) + ") " + response->remark);
    }
    return parse_topic_route(response->body);
}

}  // namespace outpost::rocketmq
