// Where the bridge sends what it forwards or quarantines: RocketMQ in
// production (rocketmq_sink.h), a scripted fake in unit tests.
#ifndef OUTPOST_BRIDGE_MESSAGE_SINK_H
#define OUTPOST_BRIDGE_MESSAGE_SINK_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "outpost/status.h"

namespace outpost::bridge {

struct SinkMessage {
    std::string topic;
    std::string tags;
    std::string keys;          // space-separated
    std::string body;          // 1 byte to 4 MiB
    std::string sharding_key;  // same key -> same queue, in send order
    std::map<std::string, std::string> properties;
};

class MessageSink {
  public:
    virtual ~MessageSink() = default;

    // Sends one message and waits for the answer. OK means SEND_OK: the
    // message is stored as durably as the broker is configured to store it.
    // Errors:
    //   kRejected, kInvalidArgument  resending the same message cannot succeed
    //   anything else                 transient (unavailable, timeout, topic not
    //                                 found yet, stored without the durability
    //                                 SEND_OK promises): resend later
    // On an error, *response_code is the code RocketMQ answered with (16
    // NO_PERMISSION, 11 SLAVE_NOT_AVAILABLE, ...), or empty when no answer
    // came (connection refused or lost, timeout, TLS) or nothing was sent.
    virtual Status send(const SinkMessage& message, std::optional<std::int32_t>* response_code) = 0;

    // Sends `messages` (1 or more, all with the first's topic; sharding keys
    // may differ) and waits for the answers: one request when every key
    // picks one queue, else one request per queue, one after another. Each
    // message goes to the queue its own sharding key picks, and one key's
    // messages are stored in this order, in one request. OK means SEND_OK
    // for every one of them. Errors as send(), for the batch as a whole: a
    // transient one may have stored some or all of them (send them again,
    // whole); a permanent one (kRejected, kInvalidArgument) may be one
    // message's fault.
    virtual Status send_batch(const std::vector<SinkMessage>& messages,
                              std::optional<std::int32_t>* response_code) = 0;

    // The queue a send of `topic` with `sharding_key` goes to by what the
    // sink knows now, as a name equal for equal queues ("broker-a/3"):
    // messages with the same name can share one send_batch() request.
    // nullopt when the sink cannot tell (no route known yet, an empty key,
    // or a sink without queues). Never waits on the network.
    virtual std::optional<std::string> queue_for(const std::string& topic,
                                                 const std::string& sharding_key) const {
        (void)topic;
        (void)sharding_key;
        return std::nullopt;
    }
};

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_MESSAGE_SINK_H
