// Topic routes: which brokers hold a topic and how many queues each offers,
// as the name server reports them (request 105, GET_ROUTEINFO_BY_TOPIC).
#ifndef OUTPOST_ROCKETMQ_ROUTE_H
#define OUTPOST_ROCKETMQ_ROUTE_H

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "outpost/status.h"
#include "rocketmq/connection.h"
#include "rocketmq/queue_selector.h"

namespace outpost::rocketmq {

// Queue permission bits (PermName upstream).
constexpr std::int32_t kPermWrite = 2;
constexpr std::int32_t kPermRead = 4;
// Broker id of a master in BrokerData::addresses.
constexpr std::int64_t kMasterBrokerId = 0;
// Most read or write queues one broker may offer for a topic in a route we
// accept (RocketMQ's default is 8; a count beyond this is a broken or
// hostile name server, and would cost memory per queue).
constexpr std::int32_t kMaxQueueNums = 1024;

struct BrokerData {
    std::string cluster;
    std::string broker_name;
    std::map<std::int64_t, std::string> addresses;  // broker id -> "ip:port"
};

struct QueueData {
    std::string broker_name;
    std::int32_t read_queue_count = 0;
    std::int32_t write_queue_count = 0;
    std::int32_t perm = 0;
};

struct TopicRoute {
    std::vector<BrokerData> brokers;
    std::vector<QueueData> queues;

    // The queues a producer may write: writable queue data whose broker has a
    // master, ordered by broker name then queue id, so that every process
    // derives the same list from the same route.
    std::vector<MessageQueue> write_queues() const;
    // The master address of `broker_name`, or "" when it has none.
    std::string master_address(const std::string& broker_name) const;
};

// Parses the strict-JSON route body. Fails with kInvalidArgument when the body
// is not JSON, a broker/queue entry lacks its name, names a broker a second
// time, or offers more than kMaxQueueNums queues; unknown fields are ignored.
Result<TopicRoute> parse_topic_route(std::string_view json);

// Asks the name server behind `name_server` for the route of `topic`.
// Fails with kNotFound when the name server answers TOPIC_NOT_EXIST,
// kPermissionDenied when it answers NO_PERMISSION (or TLS refused it), with
// kUnavailable for any other refusal or a connection failure, kTimeout when
// `timeout` passes, kInvalidArgument for an unparsable answer. When the name
// server answered with an error code, *refused_code (if given) is set to it;
// otherwise it is left as it was.
Result<TopicRoute> query_topic_route(Connection& name_server, const std::string& topic,
                                     std::chrono::milliseconds timeout,
                                     std::optional<std::int32_t>* refused_code = nullptr);

}  // namespace outpost::rocketmq

#endif  // OUTPOST_ROCKETMQ_ROUTE_H
