#include "rocketmq/send_message.h"

#include <map>
#include <set>
#include <utility>

#include "rocketmq/codes.h"
#include "rocketmq/properties.h"

namespace outpost::rocketmq {
const char* send_status_name(SendStatus status) {
    switch (status) {
        case SendStatus::kSendOk:
            return "SEND_OK";
        case SendStatus::kFlushDiskTimeout:
            return "FLUSH_DISK_TIMEOUT";
        case SendStatus::kFlushSlaveTimeout:
            return "FLUSH_SLAVE_TIMEOUT";
        case SendStatus::kSlaveNotAvailable:
            return "SLAVE_NOT_AVAILABLE";
    }
    return "UNKNOWN";
}

SendDisposition classify_send_response(std::int32_t code) {
    switch (code) {
        case kResponseSuccess:
        case kResponseFlushDiskTimeout:
        case kResponseFlushSlaveTimeout:
        case kResponseSlaveNotAvailable:
            return SendDisposition::kStored;
        case kResponseSystemBusy:
        case kResponseServiceNotAvailable:
        case kResponseFlowControl:
        case kResponseGoAway:
            return SendDisposition::kRetryOtherBroker;
        case kResponseTopicNotExist:
        case kResponseSystemError:
            return SendDisposition::kRefreshRouteAndRetry;
        default:
            return SendDisposition::kPermanent;
    }
}

SendStatus send_status_for(std::int32_t code) {
    switch (code) {
        case kResponseFlushDiskTimeout:
            return SendStatus::kFlushDiskTimeout;
        case kResponseFlushSlaveTimeout:
            return SendStatus::kFlushSlaveTimeout;
        case kResponseSlaveNotAvailable:
            return SendStatus::kSlaveNotAvailable;
        default:
            return SendStatus::kSendOk;
    }
}

bool is_reserved_property_name(const std::string& name) {
    // Upstream MessageConst names a sender must not set by hand.
    static const std::set<std::string> kReserved = {
        kPropertyKeys, kPropertyTags, kPropertyWaitStoreOk, kPropertyUniqueKey,
        kPropertyShardingKey, "DELAY", "RETRY_TOPIC", "REAL_TOPIC", "REAL_QID", "TRAN_MSG",
        "PGROUP", "MIN_OFFSET", "MAX_OFFSET", "BUYER_ID", "ORIGIN_MESSAGE_ID", "TRANSFER_FLAG",
        "CORRECTION_FLAG", "MQ2_FLAG", "RECONSUME_TIME", "MSG_REGION", "TRACE_ON",
        "MAX_RECONSUME_TIMES", "CONSUME_START_TIME", "CLUSTER"};
    return kReserved.count(name) != 0;
}

Result<std::string> encode_message_properties(const OutgoingMessage& message) {
    std::map<std::string, std::string> properties;
    for (const auto& [name, value] : message.user_properties) {
        if (is_reserved_property_name(name)) {
            return Status::error(StatusCode::kInvalidArgument,
                                 "user property name \"" + name + "\" is reserved by RocketMQ");
        }
        properties[name] = value;
    }
    if (!message.keys.empty()) {
        properties[kPropertyKeys] = message.keys;
    }
    if (!message.tags.empty()) {
        properties[kPropertyTags] = message.tags;
    }
    if (!message.sharding_key.empty()) {
        properties[kPropertyShardingKey] = message.sharding_key;
    }
    properties[kPropertyUniqueKey] = message.unique_key;
    // WAIT=true: the broker answers only after the message is stored.
    properties[kPropertyWaitStoreOk] = "true";
    return encode_properties(properties);
}

Result<RemotingCommand> build_send_request(const std::string& producer_group,
                                           const OutgoingMessage& message,
                                           const MessageQueue& queue,
                                           std::int64_t born_timestamp_ms) {
    Result<std::string> encoded = encode_message_properties(message);
    if (!encoded.is_ok()) {
        return encoded.status();
    }

    RemotingCommand request;
    request.code = kRequestSendMessage;
    request.version = kRemotingVersion;
    auto& fields = request.ext_fields;
    fields["producerGroup"] = producer_group;
    fields["topic"] = message.topic;
    fields["defaultTopic"] = kAutoCreateTopicTemplate;
    fields["defaultTopicQueueNums"] = std::to_string(kAutoCreatedTopicQueueCount);
    fields["queueId"] = std::to_string(queue.queue_id);
    fields["sysFlag"] = "0";
    fields["bornTimestamp"] = std::to_string(born_timestamp_ms);
    fields["flag"] = "0";
    fields["properties"] = std::move(encoded).value();
    fields["reconsumeTimes"] = "0";
    fields["unitMode"] = "false";
    fields["batch"] = "false";
    request.body = message.body;
    return request;
}

}  // namespace outpost::rocketmq
