// Producer::send_batch: many messages of one device in one request (the
// batch exchange, message_batch.h), with send()'s queue choice and retries.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "rocketmq/message_batch.h"
#include "rocketmq/producer.h"
#include "rocketmq/validation.h"

namespace outpost::rocketmq {

Result<BatchReceipt> Producer::send_batch(const std::string& topic,
                                          const std::vector<BatchMessage>& messages,
                                          const std::string& sharding_key,
                                          std::optional<std::int32_t>* error_code) {
    std::optional<std::int32_t> ignored;
    if (error_code == nullptr) error_code = &ignored;
    error_code->reset();
    Status valid = validate_topic(topic);
    if (valid.is_ok() && messages.empty()) {
        valid = Status::error(StatusCode::kInvalidArgument, "a batch needs at least one message");
    }
    if (valid.is_ok() && messages.size() > static_cast<std::size_t>(options_.max_batch_messages)) {
        valid = Status::error(StatusCode::kInvalidArgument,
                              "a batch of " + std::to_string(messages.size()) +
                                  " messages exceeds the bound of " +
                                  std::to_string(options_.max_batch_messages) +
                                  " (ProducerOptions::max_batch_messages): split it");
    }
    for (std::size_t i = 0; valid.is_ok() && i < messages.size(); ++i) {
        valid = validate_body(messages[i].body).with_context("batch message " + std::to_string(i));
    }
    if (!valid.is_ok()) {
        return valid;
    }

    std::vector<OutgoingMessage> outgoing;
    outgoing.reserve(messages.size());
    const auto now = std::chrono::system_clock::now();
    for (const BatchMessage& message : messages) {
        outgoing.push_back(OutgoingMessage{topic, message.tags, message.keys, message.body,
                                           sharding_key, ids_.next(now), message.user_properties});
    }
    // Encoded once, before the first attempt: a batch beyond the byte bound
    // or with a bad property fails before anything is sent, and retries
    // resend the same bytes with only the header's queue and time changed.
    Result<RemotingCommand> encoded = build_batch_request(
        options_.producer_group, topic, outgoing, MessageQueue{}, 0, options_.max_batch_bytes);
    if (!encoded.is_ok()) {
        return encoded.status();
    }
    Result<StoredAnswer> answer = send_attempts(
        topic, sharding_key,
        [&](const MessageQueue& queue, std::int64_t born_timestamp_ms) {
            return place_batch_request(*encoded, queue, born_timestamp_ms);
        },
        error_code);
    count_outcome(answer.status(),
                  answer.is_ok() ? send_status_for(answer->response.code) : SendStatus::kSendOk,
                  messages.size());
    if (!answer.is_ok()) {
        return answer.status().with_context("batch of " + std::to_string(messages.size()) +
                                            " messages");
    }
    BatchReceipt receipt = receipt_from<BatchReceipt>(*answer);
    for (const OutgoingMessage& message : outgoing) {
        receipt.message_ids.push_back(message.unique_key);
    }
    receipt.offset_message_ids =
        split_batch_message_ids(ext_field_as_string(answer->response, "msgId"));
    return receipt;
}

}  // namespace outpost::rocketmq
