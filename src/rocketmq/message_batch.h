// The SEND_BATCH_MESSAGE exchange (request 320): several messages of one
// topic stored on one queue by one request, answered once for all of them.
//
// Body layout: the messages one after another, each encoded as RocketMQ's
// MessageDecoder.encodeMessage does, integers big-endian:
//   int32  total size      bytes of this entry, this field included
//   int32  magic           0: the broker writes its own
//   int32  body CRC        rocketmq_body_crc(body) (crc32.h). The broker
//                          recomputes it (the Java client sends 0); it is
//                          filled so a captured request can be checked
//   int32  flag            0
//   int32  body length     then the body bytes
//   int16  properties length, then the properties string (properties.h):
//                          per message, as a single send carries them
//                          (encode_message_properties)
// The header is SendMessageRequestHeaderV2 (one-letter field names, the only
// form the broker reads for this code) with batch=true; its properties hold
// only WAIT=true, and never UNIQ_KEY (the broker would then store the whole
// batch as one message on a batch-queue topic).
//
// Broker side (5.3.x): the whole body counts against the broker's
// maxMessageSize (4 MiB by default), the messages get consecutive offsets on
// the queue, and the answer's queueOffset is the first one's; its msgId
// lists the stored messages' ids separated by commas.
#ifndef OUTPOST_ROCKETMQ_MESSAGE_BATCH_H
#define OUTPOST_ROCKETMQ_MESSAGE_BATCH_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "outpost/status.h"
#include "rocketmq/frame.h"
#include "rocketmq/queue_selector.h"
#include "rocketmq/send_message.h"

namespace outpost::rocketmq {

// Bytes of one entry besides its body and properties.
constexpr std::size_t kBatchEntryOverhead = 4 + 4 + 4 + 4 + 4 + 2;
// Longest properties string one entry can carry (a Java short).
constexpr std::size_t kMaxBatchEntryProperties = 32767;

// Appends the entry of `message` to `out`. Fails with kInvalidArgument, and
// leaves `out` as it was, when the properties cannot be encoded
// (encode_message_properties) or exceed kMaxBatchEntryProperties bytes.
Status append_batch_entry(const OutgoingMessage& message, std::string* out);

// Builds the request for `messages` (all of `topic`, on `queue`).
// `max_body_bytes` bounds the encoded body. Fails with kInvalidArgument,
// naming the offending message by its index, when there is no message, a
// message's topic differs from `topic`, an entry fails as above, or the
// body would exceed `max_body_bytes`.
Result<RemotingCommand> build_batch_request(const std::string& producer_group,
                                            const std::string& topic,
                                            const std::vector<OutgoingMessage>& messages,
                                            const MessageQueue& queue,
                                            std::int64_t born_timestamp_ms,
                                            std::size_t max_body_bytes);

// A copy of `request` (from build_batch_request) addressed to `queue` and
// stamped `born_timestamp_ms`: what one attempt of a batch sends.
RemotingCommand place_batch_request(const RemotingCommand& request, const MessageQueue& queue,
                                    std::int64_t born_timestamp_ms);

// The broker's storage ids from a batch answer's msgId field, in batch order
// (the comma-separated list split; empty fields dropped).
std::vector<std::string> split_batch_message_ids(const std::string& msg_id_field);

}  // namespace outpost::rocketmq

#endif  // OUTPOST_ROCKETMQ_MESSAGE_BATCH_H
