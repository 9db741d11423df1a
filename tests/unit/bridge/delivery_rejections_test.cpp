// Negative receipts from the delivery pipeline: a message the bridge
// quarantines is answered to the gateway of its topic, with the quarantine
// reason, exactly when its eventId is readable and its topic's gateway is
// the publisher; nothing is answered to the envelope's own gatewayId claim.
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
using outpost::testing::sample_envelope;

namespace {

class AcceptingSink final : public SendEachSink {
  public:
    Status send(const SinkMessage&, std::optional<std::int32_t>*) override { return Status::ok(); }
};

// Every rejection and confirmation the gateways were sent, by receipt topic.
struct Answers {
    std::map<std::string, std::vector<receipt::Rejection>> rejected_;
    std::map<std::string, std::vector<std::string>> confirmed_;
};

class AnswerRecorder final : public ReceiptSender {
  public:
    Status send(const std::string& topic, const std::string& payload) override {
        auto parsed = std::get<receipt::Receipt>(receipt::parse(payload));
        std::lock_guard<std::mutex> lock(mutex_);
        for (receipt::Rejection& rejection : parsed.rejected) {
            answers_.rejected_[topic].push_back(std::move(rejection));
        }
        for (std::string& id : parsed.event_ids) {
            answers_.confirmed_[topic].push_back(std::move(id));
        }
        return Status::ok();
    }
    Answers answers() {
        std::lock_guard<std::mutex> lock(mutex_);
        return answers_;
    }

  private:
    std::mutex mutex_;
    Answers answers_;
};

BridgeConfig rejections_config() {
    BridgeConfig config;
    config.mqtt.endpoint.uri = "tcp://127.0.0.1:1883";
    config.mqtt.endpoint.client_id = "bridge-test";
    config.rocketmq.name_servers = "127.0.0.1:9876";
    config.mapping = {{"outpost/+/alarm/+", "outpost_alarms", "${eventType}"}};
    config.quarantine_topic = "outpost_quarantine";
    return config;
}

InboundMessage message(const std::string& topic, const std::string& payload) {
    InboundMessage inbound;
    inbound.topic = topic;
    inbound.payload = payload;
    return inbound;
}

// Delivers `messages` through a Delivery with receipts attached and returns
// what the gateways were sent once the batcher flushed.
Answers deliver_all(const BridgeConfig& config, const std::vector<InboundMessage>& messages) {
    AcceptingSink sink;
    AnswerRecorder sender;
    BridgeStats stats;
    StopSignal stop;
    {
        ReceiptBatcher receipts(config.receipts, sender);
        auto created = Delivery::create(config, sink, stats, stop);
        REQUIRE(created.is_ok());
        created.value()->attach_receipts(receipts);
        for (const InboundMessage& inbound : messages) {
            CHECK(created.value()->deliver(inbound) == Verdict::kQuarantined);
        }
    }  // the batcher's destructor sends what is queued
    return sender.answers();
}

}  // namespace

TEST_CASE("a quarantined envelope with a readable eventId is rejected to its topic's gateway") {
    const std::string schema_id = new_event_id();
    nlohmann::json unknown_schema = sample_envelope("gw-1", "dev-1", 1, schema_id);
    unknown_schema["schemaVersion"] = 2;  // a newer gateway than this bridge knows
    const std::string claim_id = new_event_id();
    // gw-2 publishes under its own prefix an envelope claiming to be gw-9's.
    const nlohmann::json other_gateway = sample_envelope("gw-9", "dev-1", 1, claim_id);
    const std::string unmapped_id = new_event_id();
    const nlohmann::json event = sample_envelope("gw-1", "dev-2", 1, unmapped_id);

    const Answers sent = deliver_all(
        rejections_config(), {message(alarm_topic("gw-1", "dev-1"), unknown_schema.dump()),
                        message(alarm_topic("gw-2", "dev-1"), other_gateway.dump()),
                        message("outpost/gw-1/event/dev-2", event.dump())});

    REQUIRE(sent.rejected_.count("outpost/gw-1/receipt") == 1);
    const auto& gw1 = sent.rejected_.at("outpost/gw-1/receipt");
    REQUIRE(gw1.size() == 2);
    CHECK(gw1[0].event_id == schema_id);
    CHECK(gw1[0].code == "schema_violation");
    CHECK(gw1[0].text.find("schemaVersion") != std::string::npos);
    CHECK(gw1[1].event_id == unmapped_id);
    CHECK(gw1[1].code == "unmapped_topic");
    REQUIRE(sent.rejected_.count("outpost/gw-2/receipt") == 1);
    CHECK(sent.rejected_.at("outpost/gw-2/receipt")[0].event_id == claim_id);
    CHECK(sent.rejected_.at("outpost/gw-2/receipt")[0].code == "gateway_mismatch");
    CHECK(sent.rejected_.count("outpost/gw-9/receipt") == 0);  // never the envelope's claim
    CHECK(sent.confirmed_.empty());
}

TEST_CASE("a quarantined message without a readable eventId is never answered") {
    nlohmann::json no_id = sample_envelope("gw-1", "dev-1", 1, new_event_id());
    no_id.erase("eventId");
    nlohmann::json bad_id = sample_envelope("gw-1", "dev-1", 1, new_event_id());
    bad_id["eventId"] = "not-a-uuid";
    const Answers sent =
        deliver_all(rejections_config(), {message(alarm_topic("gw-1", "dev-1"), no_id.dump()),
                                    message(alarm_topic("gw-1", "dev-1"), bad_id.dump()),
                                    message(alarm_topic("gw-1", "dev-1"), "{\"eventId\":"),
                                    message(alarm_topic("gw-1", "dev-1"), "\xff\xfe")});
    CHECK(sent.rejected_.empty());
    CHECK(sent.confirmed_.empty());
}
