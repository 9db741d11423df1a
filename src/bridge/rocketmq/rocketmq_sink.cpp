#include "bridge/rocketmq/rocketmq_sink.h"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "common/service_log.h"

namespace outpost::bridge {
namespace {

rocketmq::ProducerOptions producer_options(const RocketMqConfig& config,
                                           rocketmq::ClientSecurity security) {
    rocketmq::ProducerOptions options;
    options.security = std::move(security);
    options.name_server_addresses = config.name_servers;
    options.producer_group = config.producer_group;
    options.request_timeout = std::chrono::milliseconds(config.send_timeout_ms);
    options.max_attempts = config.max_attempts;
    options.max_in_flight = config.max_in_flight;
    options.on_name_server_change = [](const std::string& address, const Status& why) {
        if (why.is_ok()) {
            log_info("RocketMQ name server " + address + " answers again");
        } else {
            log_warning("RocketMQ name server " + address + " failed a route lookup (" +
                        why.to_string() + "); asking the other name servers until it answers");
        }
    };
    return options;
}

// A reply other than SEND_OK stored `what` without the durability the
// bridge acknowledges on: kOutcomeUnknown, so it is sent again.
Status only_send_ok(rocketmq::SendStatus status, std::int32_t code, const std::string& broker,
                    const std::string& what, std::optional<std::int32_t>* response_code) {
    if (status == rocketmq::SendStatus::kSendOk) return Status::ok();
    *response_code = code;
    return Status::error(StatusCode::kOutcomeUnknown, "broker " + broker + " stored " + what +
                                                          " with " +
                                                          rocketmq::send_status_name(status) +
                                                          ", not SEND_OK");
}

}  // namespace

RocketMqSink::RocketMqSink(const RocketMqConfig& config, rocketmq::ClientSecurity security)
    : producer_(producer_options(config, std::move(security))) {}

Status RocketMqSink::send(const SinkMessage& message, std::optional<std::int32_t>* response_code) {
    Result<rocketmq::SendReceipt> receipt =
        producer_.send(message.topic, message.tags, message.keys, message.body,
                       message.sharding_key, message.properties, response_code);
    if (!receipt.is_ok()) return receipt.status();
    return only_send_ok(receipt->status, receipt->response_code, receipt->broker_name,
                        "the message", response_code);
}

Status RocketMqSink::send_batch(const std::vector<SinkMessage>& messages,
                                std::optional<std::int32_t>* response_code) {
    if (messages.empty()) return Status::error(StatusCode::kInvalidArgument, "an empty batch");
    std::vector<rocketmq::BatchMessage> batch;
    batch.reserve(messages.size());
    for (const SinkMessage& message : messages) {
        batch.push_back(
            {message.tags, message.keys, message.body, message.properties, message.sharding_key});
    }
    Result<rocketmq::BatchReceipt> receipt =
        producer_.send_batch(messages.front().topic, batch, "", response_code);
    if (!receipt.is_ok()) return receipt.status();
    return only_send_ok(receipt->status, receipt->response_code, receipt->broker_name,
                        "a batch of " + std::to_string(messages.size()) + " messages",
                        response_code);
}

std::optional<std::string> RocketMqSink::queue_for(const std::string& topic,
                                                   const std::string& sharding_key) const {
    Result<rocketmq::MessageQueue> queue = producer_.queue_for(topic, sharding_key);
    if (!queue.is_ok()) return std::nullopt;
    return queue->broker_name + "/" + std::to_string(queue->queue_id);
}

}  // namespace outpost::bridge
