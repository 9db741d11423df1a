// Topic administration a bridge and its tests need: create a topic on a
// broker and wait until the name server publishes its route.
#ifndef OUTPOST_ROCKETMQ_ADMIN_H
#define OUTPOST_ROCKETMQ_ADMIN_H

#include <chrono>
#include <cstdint>
#include <string>

#include "outpost/status.h"
#include "rocketmq/client_security.h"
#include "rocketmq/route.h"

namespace outpost::rocketmq {

struct TopicSpec {
    std::string name;  // validated like any topic
    std::int32_t read_queue_count = 4;
    std::int32_t write_queue_count = 4;
    std::int32_t perm = kPermRead | kPermWrite;
};

// Creates `spec` on the broker at `broker_address` (request 17,
// UPDATE_AND_CREATE_TOPIC), or updates its queue counts if it exists. Success
// means the broker stored the topic config; it registers the route with its
// name servers shortly after (see wait_for_topic_route).
// Fails with kInvalidArgument for a bad name or queue count, kRejected when
// the broker refuses (the message holds its code and remark), kUnavailable or
// kTimeout when the broker cannot be reached within `timeout`.
// `security`: signing and TLS, as for a Producer.
Status create_topic(const std::string& broker_address, const TopicSpec& spec,
                    std::chrono::milliseconds timeout, const ClientSecurity& security = {});

// Polls the name server until the route of `topic` has a writable queue.
// Success: it has. Fails with kTimeout when `timeout` passes first (the
// message holds the last lookup error), kInvalidArgument for a bad address.
Status wait_for_topic_route(const std::string& name_server_address, const std::string& topic,
                            std::chrono::milliseconds timeout, const ClientSecurity& security = {});

}  // namespace outpost::rocketmq

#endif  // OUTPOST_ROCKETMQ_ADMIN_H
