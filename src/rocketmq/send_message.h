// The SEND_MESSAGE exchange (request 10): building the request for one
// message and one queue, and reading what the broker's answer means (the
// batch request, message_batch.h, is answered the same way).
#ifndef OUTPOST_ROCKETMQ_SEND_MESSAGE_H
#define OUTPOST_ROCKETMQ_SEND_MESSAGE_H

#include <cstdint>
#include <map>
#include <string>

#include "outpost/status.h"
#include "rocketmq/frame.h"
#include "rocketmq/queue_selector.h"

namespace outpost::rocketmq {

// One message as the caller describes it.
struct OutgoingMessage {
    std::string topic;
    std::string tags;  // one tag; consumers filter on it
    std::string keys;  // space-separated; the broker indexes each
    std::string body;
    std::string sharding_key;  // same key -> same queue -> kept in order
    std::string unique_key;    // UNIQ_KEY: the message id the caller reports
    // Application properties carried with the message (consumers read them;
    // mqadmin queryMsgById and printMsg show them). Names must not be
    // reserved (is_reserved_property_name).
    std::map<std::string, std::string> user_properties{};
};

// True for the property names the broker or this client interpret (KEYS,
// TAGS, WAIT, UNIQ_KEY, __SHARDINGKEY, DELAY, ...): not usable as user
// properties.
bool is_reserved_property_name(const std::string& name);

// How a stored message was stored.
enum class SendStatus {
    kSendOk,             // stored (and flushed/replicated as the broker is configured)
    kFlushDiskTimeout,   // stored, but the synchronous flush did not finish in time
    kFlushSlaveTimeout,  // stored on the master, replication to the slave timed out
    kSlaveNotAvailable,  // stored on the master, no slave to replicate to
};

// Returns "SEND_OK", "FLUSH_DISK_TIMEOUT", ...
const char* send_status_name(SendStatus status);

// What the producer should do with a response code.
enum class SendDisposition {
    kStored,                // a SendStatus applies; do not resend
    kRetryOtherBroker,      // transient on this broker: SYSTEM_BUSY, FLOW_CONTROL, ...
    kRefreshRouteAndRetry,  // the route is stale: TOPIC_NOT_EXIST, SYSTEM_ERROR
    kPermanent,             // resending the same message cannot succeed
};

// Maps a SEND_MESSAGE response code. Stored: 0, 10, 11, 12. Retry elsewhere:
// 2 SYSTEM_BUSY, 14 SERVICE_NOT_AVAILABLE, 215 FLOW_CONTROL, 1500 GO_AWAY.
// Refresh route: 17 TOPIC_NOT_EXIST, 1 SYSTEM_ERROR (e.g. a queue id the
// broker no longer has). Everything else, including 13 MESSAGE_ILLEGAL and
// 29 INVALID_PARAMETER, is permanent.
SendDisposition classify_send_response(std::int32_t code);

// SendStatus for a code classified kStored.
SendStatus send_status_for(std::int32_t code);

// The properties string of `message` as the broker stores it: the user
// properties, KEYS, TAGS, __SHARDINGKEY (each when not empty), UNIQ_KEY and
// WAIT=true. Fails with kInvalidArgument as build_send_request describes.
Result<std::string> encode_message_properties(const OutgoingMessage& message);

// Builds the request for `message` on `queue`. Fails with kInvalidArgument
// when tags, keys, the sharding key or a user property contain the property
// separators, or a user property name is empty or reserved.
Result<RemotingCommand> build_send_request(const std::string& producer_group,
                                           const OutgoingMessage& message,
                                           const MessageQueue& queue,
                                           std::int64_t born_timestamp_ms);

}  // namespace outpost::rocketmq

#endif  // OUTPOST_ROCKETMQ_SEND_MESSAGE_H
