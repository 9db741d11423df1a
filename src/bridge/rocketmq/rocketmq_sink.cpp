#include "bridge/rocketmq/rocketmq_sink.h"

#include <chrono>
#include <string>

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

}  // namespace

RocketMqSink::RocketMqSink(const RocketMqConfig& config, rocketmq::ClientSecurity security)
    : producer_(producer_options(config, std::move(security))) {}

Status RocketMqSink::send(const SinkMessage& message, std::optional<std::int32_t>* response_code) {
    Result<rocketmq::SendReceipt> receipt =
        producer_.send(message.topic, message.tags, message.keys, message.body,
                       message.sharding_key, message.properties, response_code);
    if (!receipt.is_ok()) return receipt.status();
    if (receipt->status != rocketmq::SendStatus::kSendOk) {
        *response_code = receipt->response_code;
        return Status::error(StatusCode::kOutcomeUnknown,
                             std::string("broker ") + receipt->broker_name +
                                 " stored the message with " +
                                 rocketmq::send_status_name(receipt->status) + ", not SEND_OK");
    }
    return Status::ok();
}

}  // namespace outpost::bridge
