// A RocketMQ stand-in for tests about something other than batches: a
// batch is its messages sent one after another.
#ifndef OUTPOST_TESTS_UNIT_BRIDGE_SEND_EACH_SINK_H
#define OUTPOST_TESTS_UNIT_BRIDGE_SEND_EACH_SINK_H

#include <cstdint>
#include <optional>
#include <vector>

#include "bridge/message_sink.h"

namespace outpost::bridge {

// send_batch() calls send() for each message, stopping at the first failure.
class SendEachSink : public MessageSink {
  public:
    Status send_batch(const std::vector<SinkMessage>& messages,
                      std::optional<std::int32_t>* response_code) override {
        for (const SinkMessage& message : messages) {
            if (Status sent = send(message, response_code); !sent.is_ok()) return sent;
        }
        return Status::ok();
    }
};

}  // namespace outpost::bridge

#endif  // OUTPOST_TESTS_UNIT_BRIDGE_SEND_EACH_SINK_H
