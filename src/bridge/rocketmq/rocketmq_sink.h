// MessageSink over our RocketMQ producer (src/rocketmq).
#ifndef OUTPOST_BRIDGE_ROCKETMQ_ROCKETMQ_SINK_H
#define OUTPOST_BRIDGE_ROCKETMQ_ROCKETMQ_SINK_H

#include "bridge/config.h"
#include "bridge/message_sink.h"
#include "rocketmq/producer.h"

namespace outpost::bridge {

// Thread-safe (the producer is).
class RocketMqSink final : public MessageSink {
  public:
    // `security` from load_rocketmq_security (default: unsigned, plain TCP).
    explicit RocketMqSink(const RocketMqConfig& config, rocketmq::ClientSecurity security = {});

    // A reply of FLUSH_DISK_TIMEOUT, FLUSH_SLAVE_TIMEOUT or SLAVE_NOT_AVAILABLE
    // (stored, durability incomplete) is reported as kOutcomeUnknown: the
    // bridge acknowledges only SEND_OK, so it resends (consumers dedupe).
    // A refused identity is kPermissionDenied (see Producer::send).
    Status send(const SinkMessage& message, std::optional<std::int32_t>* response_code) override;
    // Producer::send_batch, each message with its own sharding key,
    // reported as send() reports.
    Status send_batch(const std::vector<SinkMessage>& messages,
                      std::optional<std::int32_t>* response_code) override;
    // Producer::queue_for as "broker/queueId"; nullopt while it fails.
    std::optional<std::string> queue_for(const std::string& topic,
                                         const std::string& sharding_key) const override;

  private:
    rocketmq::Producer producer_;
};

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_ROCKETMQ_ROCKETMQ_SINK_H
