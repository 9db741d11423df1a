// Producer::send_batch: many messages in as few requests as their queues
// allow (the batch exchange, message_batch.h), with send()'s queue choice
// and retries.
//
// Order: a request carries every message not yet stored whose sharding key
// picks the queue of the first such message, in batch order; the next
// request goes only after this one was stored. A key picks one queue at an
// attempt, so a key's messages are always in one request, in order, and
// none of them goes before an earlier one of the same key was stored.
#include <algorithm>
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
namespace {

// The messages at `indexes` of `all`, in that order.
std::vector<OutgoingMessage> subset(const std::vector<OutgoingMessage>& all,
                                    const std::vector<std::size_t>& indexes) {
    std::vector<OutgoingMessage> out;
    out.reserve(indexes.size());
    for (std::size_t index : indexes) out.push_back(all[index]);
    return out;
}

}  // namespace

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
        outgoing.push_back(OutgoingMessage{
            topic, message.tags, message.keys, message.body,
            message.sharding_key.empty() ? sharding_key : message.sharding_key, ids_.next(now),
            message.user_properties});
    }
    // Encoded once, before the first attempt: a batch beyond the byte bound
    // or with a bad property fails before anything is sent, and retries
    // resend the same bytes with only the header's queue and time changed.
    // A request that carries part of the batch is encoded from that part
    // (each part is within the bounds the whole is within).
    std::vector<std::size_t> encoded_for(outgoing.size());
    for (std::size_t i = 0; i < encoded_for.size(); ++i) encoded_for[i] = i;
    Result<RemotingCommand> encoded = build_batch_request(
        options_.producer_group, topic, outgoing, MessageQueue{}, 0, options_.max_batch_bytes);
    if (!encoded.is_ok()) {
        return encoded.status();
    }

    BatchReceipt receipt;
    int requests = 0;
    std::vector<std::string> offset_ids(outgoing.size());
    bool offset_ids_per_message = true;
    std::vector<std::size_t> pending = encoded_for;  // not stored yet, in batch order
    while (!pending.empty()) {
        std::vector<std::size_t> carried;  // what the attempt that answered carried
        Result<StoredAnswer> answer = send_attempts(
            topic, outgoing[pending.front()].sharding_key,
            [&](const QueueChoice& choice,
                std::int64_t born_timestamp_ms) -> Result<RemotingCommand> {
                carried.clear();
                for (std::size_t index : pending) {
                    if (choice.takes(outgoing[index].sharding_key)) carried.push_back(index);
                }
                if (carried != encoded_for) {
                    encoded = build_batch_request(options_.producer_group, topic,
                                                  subset(outgoing, carried), MessageQueue{}, 0,
                                                  options_.max_batch_bytes);
                    if (!encoded.is_ok()) return encoded.status();
                    encoded_for = carried;
                }
                return place_batch_request(*encoded, choice.queue, born_timestamp_ms);
            },
            error_code);
        count_outcome(answer.status(),
                      answer.is_ok() ? send_status_for(answer->response.code) : SendStatus::kSendOk,
                      answer.is_ok() ? carried.size() : pending.size());
        if (!answer.is_ok()) {
            return answer.status().with_context(
                "batch of " + std::to_string(messages.size()) + " messages" +
                (pending.size() < messages.size()
                     ? ", " + std::to_string(messages.size() - pending.size()) +
                           " of them stored by earlier requests"
                     : ""));
        }
        if (++requests == 1) receipt = receipt_from<BatchReceipt>(*answer);
        const SendStatus status = send_status_for(answer->response.code);
        if (receipt.status == SendStatus::kSendOk && status != SendStatus::kSendOk) {
            receipt.status = status;
            receipt.response_code = answer->response.code;
        }
        receipt.attempts = std::max(receipt.attempts, answer->attempts);
        const std::vector<std::string> ids =
            split_batch_message_ids(ext_field_as_string(answer->response, "msgId"));
        if (ids.size() != carried.size()) offset_ids_per_message = false;
        for (std::size_t i = 0; i < ids.size() && i < carried.size(); ++i) {
            offset_ids[carried[i]] = ids[i];
        }
        receipt.offset_message_ids.insert(receipt.offset_message_ids.end(), ids.begin(), ids.end());
        std::vector<std::size_t> rest;
        for (std::size_t index : pending) {
            if (!std::binary_search(carried.begin(), carried.end(), index)) rest.push_back(index);
        }
        pending = std::move(rest);
    }
    receipt.requests = requests;
    for (const OutgoingMessage& message : outgoing) {
        receipt.message_ids.push_back(message.unique_key);
    }
    if (offset_ids_per_message) receipt.offset_message_ids = std::move(offset_ids);
    return receipt;
}

}  // namespace outpost::rocketmq
