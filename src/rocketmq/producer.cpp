#include "rocketmq/producer.h"

#include <algorithm>
#include <thread>
#include <utility>

#include "rocketmq/codes.h"
#include "rocketmq/queue_selector.h"
#include "rocketmq/validation.h"

namespace outpost::rocketmq {
namespace {

std::int64_t now_ms() {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

// The queue of `from` that a message with the non-empty `sharding_key` goes
// to: the one rule every send, batch and queue_for() follow.
const MessageQueue& queue_of_key(const std::vector<MessageQueue>& from,
                                 const std::string& sharding_key) {
    return from[select_queue_index(sharding_key, from.size())];
}

}  // namespace

Producer::Producer(ProducerOptions options)
    : options_(std::move(options)),
      name_servers_(options_.name_server_addresses),
      retry_backoff_(Backoff::exact(options_.initial_backoff, options_.max_backoff)) {}

Producer::~Producer() = default;

ProducerCounters Producer::counters() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return counters_;
}

Connection& Producer::connection_to(const std::string& address) {
    std::unique_ptr<Connection>& slot = connections_[address];
    if (slot == nullptr) {
        slot = std::make_unique<Connection>(address, options_.max_in_flight, options_.security);
    }
    return *slot;
}

Result<TopicRoute> Producer::query_name_servers(const std::string& topic,
                                                std::optional<std::int32_t>* refused_code) {
    Status last = Status::error(StatusCode::kInvalidArgument, "no name server address configured");
    for (const std::string& address : name_servers_.in_asking_order()) {
        refused_code->reset();
        Result<TopicRoute> route = query_topic_route(connection_to(address), topic,
                                                     options_.request_timeout, refused_code);
        if (route.is_ok() || route.status().code() == StatusCode::kNotFound) {
            if (name_servers_.answered(address) && options_.on_name_server_change) {
                options_.on_name_server_change(address, Status::ok());
            }
            return route;
        }
        if (name_servers_.failed(address) && options_.on_name_server_change) {
            options_.on_name_server_change(address, route.status());
        }
        last = route.status();
    }
    return last;
}

Result<TopicRoute> Producer::template_route(std::optional<std::int32_t>* refused_code) {
    Result<TopicRoute> route = query_name_servers(kAutoCreateTopicTemplate, refused_code);
    if (!route.is_ok()) {
        return route;
    }
    // The broker creates min(defaultTopicQueueNums, template queues) queues.
    for (QueueData& queue : route->queues) {
        queue.write_queue_count = std::min(queue.write_queue_count, kAutoCreatedTopicQueueCount);
        queue.read_queue_count = std::min(queue.read_queue_count, kAutoCreatedTopicQueueCount);
    }
    return route;
}

Result<TopicRoute> Producer::route_for(const std::string& topic, bool refresh,
                                       std::optional<std::int32_t>* refused_code) {
    const auto now = std::chrono::steady_clock::now();
    auto cached = routes_.find(topic);
    if (cached != routes_.end() && !refresh &&
        now - cached->second.fetched < options_.route_refresh_interval) {
        return cached->second.route;
    }
    Result<TopicRoute> route = query_name_servers(topic, refused_code);
    if (route.is_ok()) {
        routes_[topic] = CachedRoute{*route, now};
        return route;
    }
    if (cached != routes_.end()) {
        // The name servers are unreachable, or they dropped the route because
        // every broker serving the topic went away: keep trying the brokers we
        // knew, which gives the caller the brokers' own errors.
        refused_code->reset();
        return cached->second.route;
    }
    if (route.status().code() != StatusCode::kNotFound || !options_.auto_create_topics) {
        return route;
    }
    // Not cached: the real route appears once the broker has created the topic.
    Result<TopicRoute> fallback = template_route(refused_code);
    if (fallback.is_ok() || fallback.status().code() != StatusCode::kNotFound) {
        return fallback;
    }
    return Status::error(StatusCode::kNotFound,
                         "topic " + topic +
                             " is unknown to the name servers and no broker offers to "
                             "create it (template topic TBW102 unknown)");
}

Producer::QueueChoice Producer::pick_queue(const std::vector<MessageQueue>& queues,
                                           const std::string& sharding_key,
                                           const std::string& avoid_broker) {
    QueueChoice choice;
    if (!avoid_broker.empty()) {
        for (const MessageQueue& queue : queues) {
            if (queue.broker_name != avoid_broker) {
                choice.candidates.push_back(queue);
            }
        }
    }
    if (choice.candidates.empty()) choice.candidates = queues;
    const std::vector<MessageQueue>& from = choice.candidates;
    choice.queue = sharding_key.empty() ? from[round_robin_++ % from.size()]
                                        : queue_of_key(from, sharding_key);
    return choice;
}

bool Producer::QueueChoice::takes(const std::string& sharding_key) const {
    return sharding_key.empty() || queue_of_key(candidates, sharding_key) == queue;
}

Result<MessageQueue> Producer::queue_for(const std::string& topic,
                                         const std::string& sharding_key) const {
    if (sharding_key.empty()) {
        return Status::error(StatusCode::kInvalidArgument,
                             "an empty sharding key has no queue of its own (it rotates)");
    }
    std::lock_guard<std::mutex> lock(mutex_);
    const auto cached = routes_.find(topic);
    if (cached == routes_.end()) {
        return Status::error(StatusCode::kNotFound,
                             "no route of topic " + topic +
                                 " is cached yet (the first send fetches it)");
    }
    // As the first attempt of a send picks: no broker avoided.
    const std::vector<MessageQueue> queues = cached->second.route.write_queues();
    if (queues.empty()) {
        return Status::error(StatusCode::kUnavailable, "topic " + topic + " has no writable queue");
    }
    return queue_of_key(queues, sharding_key);
}

Result<SendReceipt> Producer::send(const std::string& topic, const std::string& tags,
                                   const std::string& keys, const std::string& body,
                                   const std::string& sharding_key) {
    return send(topic, tags, keys, body, sharding_key, {}, nullptr);
}

Result<SendReceipt> Producer::send(const std::string& topic, const std::string& tags,
                                   const std::string& keys, const std::string& body,
                                   const std::string& sharding_key,
                                   const std::map<std::string, std::string>& user_properties,
                                   std::optional<std::int32_t>* error_code) {
    std::optional<std::int32_t> ignored;
    if (error_code == nullptr) error_code = &ignored;
    error_code->reset();
    Status valid = validate_topic(topic);
    if (valid.is_ok()) {
        valid = validate_body(body);
    }
    if (!valid.is_ok()) {
        return valid;
    }
    OutgoingMessage message{topic, tags,         keys,
                            body,  sharding_key, ids_.next(std::chrono::system_clock::now())};
    message.user_properties = user_properties;
    Result<StoredAnswer> answer = send_attempts(
        topic, sharding_key,
        [&](const QueueChoice& choice, std::int64_t born_timestamp_ms) {
            return build_send_request(options_.producer_group, message, choice.queue,
                                      born_timestamp_ms);
        },
        error_code);
    count_outcome(answer.status(),
                  answer.is_ok() ? send_status_for(answer->response.code) : SendStatus::kSendOk, 1);
    if (!answer.is_ok()) {
        return answer.status();
    }
    SendReceipt receipt = receipt_from<SendReceipt>(*answer);
    receipt.message_id = message.unique_key;
    receipt.offset_message_id = ext_field_as_string(answer->response, "msgId");
    return receipt;
}

void Producer::count_outcome(const Status& status, SendStatus stored, std::uint64_t messages) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!status.is_ok()) {
        counters_.failed += messages;
    } else if (stored == SendStatus::kSendOk) {
        counters_.sent_ok += messages;
    } else {
        counters_.stored_not_durable += messages;
    }
}

Result<Producer::StoredAnswer> Producer::send_attempts(const std::string& topic,
                                                       const std::string& sharding_key,
                                                       const RequestForQueue& request_for,
                                                       std::optional<std::int32_t>* error_code) {
    if (name_servers_.empty()) {
        return Status::error(StatusCode::kInvalidArgument,
                             "producer has no name server address (ProducerOptions)");
    }
    const int attempts = std::max(1, options_.max_attempts);
    Status last_error;
    std::string avoid_broker;
    bool refresh_route = false;
    for (int attempt = 1; attempt <= attempts; ++attempt) {
        if (attempt > 1) {
            std::chrono::milliseconds pause;
            {
                std::lock_guard<std::mutex> lock(mutex_);
                ++counters_.retries;
                pause = retry_backoff_.delay(attempt - 1);
            }
            std::this_thread::sleep_for(pause);
        }
        std::unique_lock<std::mutex> lock(mutex_);
        error_code->reset();  // the last attempt's code only
        Result<TopicRoute> route = route_for(topic, refresh_route, error_code);
        refresh_route = true;  // whatever fails next, ask the name server again
        if (!route.is_ok() && route.status().code() == StatusCode::kPermissionDenied) {
            return route.status();  // our identity is refused: another attempt cannot help
        }
        if (!route.is_ok()) {
            last_error = route.status();
            continue;
        }
        const std::vector<MessageQueue> queues = route->write_queues();
        if (queues.empty()) {
            last_error = Status::error(StatusCode::kUnavailable,
                                       "topic " + topic + " has no writable queue");
            continue;
        }
        const QueueChoice choice = pick_queue(queues, sharding_key, avoid_broker);
        const MessageQueue& queue = choice.queue;
        const std::string address = route->master_address(queue.broker_name);
        Result<RemotingCommand> request = request_for(choice, now_ms());
        if (!request.is_ok()) {
            return request.status();
        }
        Connection& connection = connection_to(address);
        lock.unlock();
        Result<RemotingCommand> response =
            connection.invoke(std::move(request).value(), options_.request_timeout);
        if (!response.is_ok() && response.status().code() == StatusCode::kPermissionDenied) {
            return response.status().with_context("send to broker " + queue.broker_name);
        }
        if (!response.is_ok()) {
            last_error = response.status().with_context("send to broker " + queue.broker_name);
            avoid_broker = queue.broker_name;
            continue;
        }
        const std::string refusal = std::string("broker ") + queue.broker_name + " (" + address +
                                    ") answered " + response_code_name(response->code) + " (" +
                                    std::to_string(response->code) + "): " + response->remark;
        const SendDisposition disposition = classify_send_response(response->code);
        if (disposition != SendDisposition::kStored) *error_code = response->code;
        switch (disposition) {
            case SendDisposition::kStored:
                return StoredAnswer{std::move(response).value(), queue, address, attempt};
            case SendDisposition::kRetryOtherBroker:
                last_error = Status::error(StatusCode::kUnavailable, refusal);
                avoid_broker = queue.broker_name;
                break;
            case SendDisposition::kRefreshRouteAndRetry:
                last_error = Status::error(StatusCode::kUnavailable, refusal);
                break;
            case SendDisposition::kPermanent:
                // NO_PERMISSION from a broker that checks our signature is
                // about us (credentials, ACL): the caller must hold the
                // message, not drop it. Unsigned, it can only be about the
                // message's topic (a system topic, a topic without write
                // permission): a refusal of this message, as any other.
                return Status::error(response->code == kResponseNoPermission &&
                                             options_.security.credentials.has_value()
                                         ? StatusCode::kPermissionDenied
                                         : StatusCode::kRejected,
                                     refusal);
        }
    }
    return last_error.with_context("send to topic " + topic + " failed after " +
                                   std::to_string(attempts) + " attempts");
}

}  // namespace outpost::rocketmq
