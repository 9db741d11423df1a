// What the Delivery unit tests share: a scripted RocketMQ, a fake clock for
// retry pauses, a configuration and a Delivery built over them, and alarms.
#ifndef OUTPOST_TESTS_UNIT_BRIDGE_DELIVERY_FIXTURES_H
#define OUTPOST_TESTS_UNIT_BRIDGE_DELIVERY_FIXTURES_H

#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bridge/delivery.h"
#include "bridge/message_sink.h"
#include "sample_envelope.h"

namespace outpost::bridge {

using outpost::testing::alarm_topic;
using outpost::testing::sample_envelope_text;

// Answers each send with the next scripted status (OK once the script is
// empty) and response code (none once `codes` is empty), and records what
// it was asked to send.
// A batch counts as one send: it records each of its messages in `sent`,
// and the whole batch in `batches`. queue_for() names the queue `queues`
// maps a sharding key to, nullopt for a key it does not list.
class ScriptedSink final : public MessageSink {
  public:
    Status send(const SinkMessage& message, std::optional<std::int32_t>* response_code) override {
        sent.push_back(message);
        if (on_send) on_send(sent.size());
        return next(response_code);
    }

    Status send_batch(const std::vector<SinkMessage>& messages,
                      std::optional<std::int32_t>* response_code) override {
        sent.insert(sent.end(), messages.begin(), messages.end());
        batches.push_back(messages);
        if (on_send) on_send(sent.size());
        return next(response_code);
    }

    std::optional<std::string> queue_for(const std::string&,
                                         const std::string& sharding_key) const override {
        const auto queue = queues.find(sharding_key);
        if (queue == queues.end()) return std::nullopt;
        return queue->second;
    }

    Status next(std::optional<std::int32_t>* response_code) {
        if (script.empty()) return Status::ok();
        Status answer = script.front();
        script.pop_front();
        if (!codes.empty()) {
            *response_code = codes.front();
            codes.pop_front();
        }
        return answer;
    }

    std::vector<std::vector<SinkMessage>> batches;
    std::map<std::string, std::string> queues;  // sharding key -> queue name
    std::deque<Status> script;
    std::deque<std::optional<std::int32_t>> codes;
    std::vector<SinkMessage> sent;
    std::function<void(std::size_t)> on_send;
};

inline BridgeConfig test_config() {
    BridgeConfig config;
    config.mqtt.endpoint.uri = "tcp://127.0.0.1:1883";
    config.mqtt.endpoint.client_id = "bridge-test";
    config.rocketmq.name_servers = "127.0.0.1:9876";
    config.rocketmq.retry_pause_max_ms = 100;
    config.mapping = {{"outpost/+/alarm/+", "outpost_alarms", "${payload.severity}"},
                      {"outpost/#", "outpost_other", "${eventType}"}};
    config.quarantine_topic = "outpost_quarantine";
    return config;
}

// A stop signal on a fake clock: each pause passes at once, whole, and the
// stop comes when requested or once `limit` of that time has passed. Used on
// one thread.
class FakeTimeStop final : public StopSignal {
  public:
    explicit FakeTimeStop(std::chrono::milliseconds limit) : limit_(limit) {}

    bool wait_for(std::chrono::milliseconds pause) const override {
        if (stop_requested()) return true;
        passed_ = std::min(limit_, passed_ + pause);
        return passed_ >= limit_;
    }

  private:
    const std::chrono::milliseconds limit_;
    mutable std::chrono::milliseconds passed_{0};
};

struct Harness {
    explicit Harness(BridgeConfig config_in = test_config()) : config(std::move(config_in)) {
        auto created = Delivery::create(config, sink, stats, stop);
        REQUIRE(created.is_ok());
        delivery = std::move(created).value();
    }

    BridgeConfig config;
    ScriptedSink sink;
    BridgeStats stats;
    // Retry pauses pass at once. A day of them: thousands of resends of a
    // transient failure, before the stop a test did not request.
    FakeTimeStop stop{std::chrono::hours(24)};
    std::unique_ptr<Delivery> delivery;
};

inline InboundMessage alarm(const std::string& gateway, const std::string& device, std::int64_t seq,
                     const std::string& event_id) {
    InboundMessage message;
    message.topic = alarm_topic(gateway, device);
    message.payload = sample_envelope_text(gateway, device, seq, event_id, "major");
    return message;
}

inline Status unavailable() {
    return Status::error(StatusCode::kUnavailable, "broker down");
}

}  // namespace outpost::bridge

#endif  // OUTPOST_TESTS_UNIT_BRIDGE_DELIVERY_FIXTURES_H
