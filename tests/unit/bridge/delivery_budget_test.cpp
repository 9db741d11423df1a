// limits.max_messages_per_s_per_gateway in the delivery pipeline: a gateway
// over its budget gets kPaced for its message, which is neither sent nor
// confirmed (so the gateway, waiting for its receipt, publishes it again),
// while other gateways forward as before. The budget is so small here
// (one message, then one per 1000 s) that the real clock cannot refill it
// during the test.
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "bridge/delivery.h"
#include "bridge/mqtt/receipt_batcher.h"
#include "common/receipt_contract.h"
#include "sample_envelope.h"
#include "send_each_sink.h"

using namespace outpost;
using namespace outpost::bridge;
using outpost::testing::alarm_topic;
using outpost::testing::new_event_id;
using outpost::testing::sample_envelope_text;

namespace {

// SEND_OK for everything; counts sends by RocketMQ topic and KEYS.
class StoringSink final : public SendEachSink {
  public:
    Status send(const SinkMessage& message, std::optional<std::int32_t>*) override {
        ++sends[{message.topic, message.keys}];
        return Status::ok();
    }
    std::map<std::pair<std::string, std::string>, int> sends;  // (topic, KEYS) -> times
};

// Every receipt and rejection by (receipt topic, eventId).
class RecordingSender final : public ReceiptSender {
  public:
    Status send(const std::string& topic, const std::string& payload) override {
        const auto parsed = receipt::parse(payload);
        std::lock_guard<std::mutex> lock(mutex_);
        const auto& confirmed = std::get<receipt::Receipt>(parsed);
        for (const std::string& id : confirmed.event_ids) ++answers_[{topic, id}];
        for (const receipt::Rejection& rejected : confirmed.rejected) {
            ++answers_[{topic, rejected.event_id}];
        }
        return Status::ok();
    }
    int answers(const std::string& topic, const std::string& id) {
        std::lock_guard<std::mutex> lock(mutex_);
        const auto found = answers_.find({topic, id});
        return found == answers_.end() ? 0 : found->second;
    }

  private:
    std::mutex mutex_;
    std::map<std::pair<std::string, std::string>, int> answers_;
};

BridgeConfig budget_config() {
    BridgeConfig config;
    config.mqtt.endpoint.uri = "tcp://127.0.0.1:1883";
    config.mqtt.endpoint.client_id = "bridge-test";
    config.rocketmq.name_servers = "127.0.0.1:9876";
    config.mapping = {{"outpost/+/alarm/+", "outpost_alarms", "${payload.severity}"}};
    config.quarantine_topic = "outpost_quarantine";
    config.limits.max_messages_per_s_per_gateway = 0.001;
    return config;
}

struct GatewayAlarm {
    InboundMessage message;
    std::string event_id;
    std::string receipt_topic;
};

GatewayAlarm alarm_of(const std::string& gateway, int sequence) {
    GatewayAlarm alarm;
    alarm.event_id = new_event_id();
    alarm.message.topic = alarm_topic(gateway, "dev-1");
    alarm.message.payload = sample_envelope_text(gateway, "dev-1", sequence, alarm.event_id);
    alarm.receipt_topic = "outpost/" + gateway + "/receipt";
    return alarm;
}

}  // namespace

TEST_CASE("a gateway over its budget is paced without a send or a receipt; others forward") {
    const BridgeConfig config = budget_config();
    StoringSink sink;
    RecordingSender sender;
    BridgeStats stats;
    StopSignal stop;
    const GatewayAlarm first = alarm_of("flooder", 1);
    const GatewayAlarm second = alarm_of("flooder", 2);
    GatewayAlarm bad = alarm_of("flooder", 3);
    // Quarantined for its gatewayId (another gateway's), with a readable eventId.
    bad.message.payload = sample_envelope_text("gw-quiet", "dev-1", 3, bad.event_id);
    const GatewayAlarm other = alarm_of("gw-quiet", 1);
    std::map<std::string, Verdict> verdicts;
    {
        ReceiptBatcher receipts(config.receipts, sender);
        auto created = Delivery::create(config, sink, stats, stop);
        REQUIRE(created.is_ok());
        Delivery& delivery = *created.value();
        delivery.attach_receipts(receipts);
        verdicts["first"] = delivery.deliver(first.message);
        verdicts["second"] = delivery.deliver(second.message);
        verdicts["bad"] = delivery.deliver(bad.message);  // its copy would cost a send too
        verdicts["other"] = delivery.deliver(other.message);
        // The first one again (the gateway republished it): a duplicate
        // costs no send and is confirmed whatever the budget.
        verdicts["first again"] = delivery.deliver(first.message);
    }  // the batcher sends what is queued

    CHECK(verdicts["first"] == Verdict::kForwarded);
    CHECK(verdicts["second"] == Verdict::kPaced);
    CHECK(verdicts["bad"] == Verdict::kPaced);
    CHECK(verdicts["other"] == Verdict::kForwarded);
    CHECK(verdicts["first again"] == Verdict::kDuplicate);

    CHECK(sink.sends.size() == 2);  // first and other, once each; nothing quarantined
    CHECK(sink.sends[{"outpost_alarms", first.event_id}] == 1);
    CHECK(sink.sends[{"outpost_alarms", other.event_id}] == 1);
    CHECK(sender.answers(first.receipt_topic, first.event_id) == 2);
    CHECK(sender.answers(second.receipt_topic, second.event_id) == 0);  // republished later
    CHECK(sender.answers(bad.receipt_topic, bad.event_id) == 0);        // no rejection yet either
    CHECK(sender.answers(other.receipt_topic, other.event_id) == 1);

    const BridgeFigures figures = stats.figures();
    CHECK(figures.paced == 2);
    CHECK(figures.received == 5);
    CHECK(figures.in_hand() == 0);  // paced messages are not work the watchdog waits on
}

TEST_CASE("without a per-gateway budget nobody is paced") {
    BridgeConfig config = budget_config();
    config.limits.max_messages_per_s_per_gateway = 0;
    StoringSink sink;
    BridgeStats stats;
    StopSignal stop;
    auto created = Delivery::create(config, sink, stats, stop);
    REQUIRE(created.is_ok());
    for (int i = 1; i <= 50; ++i) {
        CHECK(created.value()->deliver(alarm_of("flooder", i).message) == Verdict::kForwarded);
    }
    CHECK(stats.figures().paced == 0);
}
