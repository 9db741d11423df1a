#include "rocketmq/message_batch.h"

#include <map>
#include <string>
#include <utility>

#include "rocketmq/codes.h"
#include "rocketmq/crc32.h"
#include "rocketmq/properties.h"

namespace outpost::rocketmq {
namespace {

void put_int32(std::int32_t value, std::string* out) {
    const auto bits = static_cast<std::uint32_t>(value);
    out->push_back(static_cast<char>((bits >> 24) & 0xFFu));
    out->push_back(static_cast<char>((bits >> 16) & 0xFFu));
    out->push_back(static_cast<char>((bits >> 8) & 0xFFu));
    out->push_back(static_cast<char>(bits & 0xFFu));
}

void put_int16(std::uint16_t value, std::string* out) {
    out->push_back(static_cast<char>((value >> 8) & 0xFFu));
    out->push_back(static_cast<char>(value & 0xFFu));
}

}  // namespace

Status append_batch_entry(const OutgoingMessage& message, std::string* out) {
    Result<std::string> properties = encode_message_properties(message);
    if (!properties.is_ok()) {
        return properties.status();
    }
    if (properties->size() > kMaxBatchEntryProperties) {
        return Status::error(StatusCode::kInvalidArgument,
                             "message properties take " + std::to_string(properties->size()) +
                                 " bytes; a batched message carries at most 32767");
    }
    const std::size_t total = kBatchEntryOverhead + message.body.size() + properties->size();
    out->reserve(out->size() + total);
    put_int32(static_cast<std::int32_t>(total), out);
    put_int32(0, out);  // magic
    put_int32(rocketmq_body_crc(message.body), out);
    put_int32(0, out);  // flag
    put_int32(static_cast<std::int32_t>(message.body.size()), out);
    out->append(message.body);
    put_int16(static_cast<std::uint16_t>(properties->size()), out);
    out->append(*properties);
    return Status::ok();
}

Result<RemotingCommand> build_batch_request(const std::string& producer_group,
                                            const std::string& topic,
                                            const std::vector<OutgoingMessage>& messages,
                                            const MessageQueue& queue,
                                            std::int64_t born_timestamp_ms,
                                            std::size_t max_body_bytes) {
    if (messages.empty()) {
        return Status::error(StatusCode::kInvalidArgument, "a batch needs at least one message");
    }
    std::string body;
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const std::string which = "batch message " + std::to_string(i);
        if (messages[i].topic != topic) {
            return Status::error(
                StatusCode::kInvalidArgument,
                which + " is for topic " + messages[i].topic + ", the batch for " + topic);
        }
        Status appended = append_batch_entry(messages[i], &body);
        if (!appended.is_ok()) {
            return appended.with_context(which);
        }
        if (body.size() > max_body_bytes) {
            return Status::error(StatusCode::kInvalidArgument,
                                 "a batch of " + std::to_string(messages.size()) +
                                     " messages exceeds " + std::to_string(max_body_bytes) +
                                     " bytes already at message " + std::to_string(i) +
                                     ": split it (nothing was sent)");
        }
    }

    RemotingCommand request;
    request.code = kRequestSendBatchMessage;
    request.version = kRemotingVersion;
    // SendMessageRequestHeaderV2's one-letter names; e, g and n (queue id,
    // born time, broker name) are set by place_batch_request.
    request.ext_fields = {
        {"a", producer_group},
        {"b", topic},
        {"c", kAutoCreateTopicTemplate},
        {"d", std::to_string(kAutoCreatedTopicQueueCount)},
        {"f", "0"},  // sysFlag
        {"h", "0"},  // flag
        // WAIT=true: the broker answers only after the whole batch is stored.
        {"i", encode_properties({{kPropertyWaitStoreOk, "true"}}).value()},
        {"j", "0"},      // reconsumeTimes
        {"k", "false"},  // unitMode
        {"m", "true"},   // batch
    };
    request.body = std::move(body);
    return place_batch_request(request, queue, born_timestamp_ms);
}

RemotingCommand place_batch_request(const RemotingCommand& request, const MessageQueue& queue,
                                    std::int64_t born_timestamp_ms) {
    RemotingCommand placed = request;
    placed.ext_fields["e"] = std::to_string(queue.queue_id);
    placed.ext_fields["g"] = std::to_string(born_timestamp_ms);
    placed.ext_fields["n"] = queue.broker_name;
    return placed;
}

std::vector<std::string> split_batch_message_ids(const std::string& msg_id_field) {
    std::vector<std::string> ids;
    std::size_t begin = 0;
    while (begin <= msg_id_field.size()) {
        std::size_t end = msg_id_field.find(',', begin);
        if (end == std::string::npos) end = msg_id_field.size();
        if (end > begin) ids.push_back(msg_id_field.substr(begin, end - begin));
        begin = end + 1;
    }
    return ids;
}

}  // namespace outpost::rocketmq
