// The bridge's whole per-message path (bridge/delivery.h) for one MQTT
// message, with a configured tag template, against a sink that checks each
// message as RocketMQ's encoder would. Properties:
//   - every message reaches exactly one end: forwarded to the mapped topic,
//     or quarantined to the quarantine topic (never dropped, never both);
//   - the bridge never forwards what its own checks reject: a forwarded
//     body is the payload verbatim, strict JSON, satisfies the envelope
//     contract, its gatewayId and deviceId are the topic's levels, KEYS is
//     its eventId and the sharding key its deviceId;
//   - a rendered tag holds only [A-Za-z0-9._-], at most 128 characters;
//   - whatever the bridge sends, forwarded or quarantined, RocketMQ's
//     request builder and frame encoder accept (no separator bytes in
//     properties, a valid topic, a body of 1 byte to 4 MiB), and the
//     properties decode back to the tags and keys the bridge chose.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "bridge/config.h"
#include "bridge/delivery.h"
#include "bridge/mqtt/topic_filter.h"
#include "bridge/rocketmq/tag_template.h"
#include "common/envelope_document.h"
#include "common/strict_json.h"
#include "fuzz_check.h"
#include "rocketmq/frame.h"
#include "rocketmq/properties.h"
#include "rocketmq/send_message.h"
#include "rocketmq/validation.h"

namespace {

using namespace outpost::bridge;

constexpr char kAlarmTopic[] = "outpost_alarms";
constexpr char kQuarantineTopic[] = "outpost_quarantine";

// Stands for RocketMQ: accepts what the producer would put on the wire,
// after the checks the producer makes (producer.cpp) and the frame encoder.
class CheckingSink final : public MessageSink {
  public:
    outpost::Status send(const SinkMessage& message,
                         std::optional<std::int32_t>* /*response_code*/) override {
        sent.push_back(message);
        FUZZ_CHECK(outpost::rocketmq::validate_topic(message.topic).is_ok(),
                   "the bridge sends to a valid RocketMQ topic");
        FUZZ_CHECK(outpost::rocketmq::validate_body(message.body).is_ok(),
                   "the bridge sends a body of 1 byte to 4 MiB");
        outpost::rocketmq::OutgoingMessage outgoing{
            message.topic,        message.tags,      message.keys,      message.body,
            message.sharding_key, "fuzz-unique-key", message.properties};
        auto request = outpost::rocketmq::build_send_request("fuzz", outgoing, {"broker-a", 0}, 1);
        FUZZ_CHECK(request.is_ok(), "RocketMQ's request builder accepts what the bridge sends");
        FUZZ_CHECK(outpost::rocketmq::encode_frame(*request).is_ok(),
                   "the frame encoder accepts what the bridge sends");
        auto properties = outpost::rocketmq::decode_properties(request->ext_fields["properties"]);
        FUZZ_CHECK(properties.is_ok(), "the properties the bridge sends decode");
        FUZZ_CHECK(message.tags.empty() || (*properties)["TAGS"] == message.tags,
                   "TAGS carries the bridge's tag unchanged");
        FUZZ_CHECK(message.keys.empty() || (*properties)["KEYS"] == message.keys,
                   "KEYS carries the bridge's keys unchanged");
        return outpost::Status::ok();
    }
    // A batch is checked message by message, as the producer checks it.
    outpost::Status send_batch(const std::vector<SinkMessage>& messages,
                               std::optional<std::int32_t>* response_code) override {
        for (const SinkMessage& message : messages) {
            FUZZ_CHECK(message.topic == messages.front().topic &&
                           message.sharding_key == messages.front().sharding_key,
                       "a batch holds one topic and one device");
            outpost::Status sent_one = send(message, response_code);
            if (!sent_one) return sent_one;
        }
        return outpost::Status::ok();
    }
    std::vector<SinkMessage> sent;
};

BridgeConfig config_for(const std::string& tag) {
    BridgeConfig config;
    config.mapping.push_back(MappingRule{"outpost/+/alarm/+", kAlarmTopic, tag});
    config.quarantine_topic = kQuarantineTopic;
    config.dedupe_capacity = 16;  // one message per Delivery; the default sizes for 100000
    config.limits.max_payload_bytes = 4096;
    config.limits.quarantine_body_bytes = 512;
    return config;
}

void check_forwarded(const InboundMessage& message, const SinkMessage& out) {
    FUZZ_CHECK(out.topic == kAlarmTopic, "a forwarded message goes to the mapped topic");
    FUZZ_CHECK(out.body == message.payload, "a forwarded body is the payload verbatim");
    auto parsed = outpost::parse_strict_json(out.body, outpost::envelope::kMaxDepth);
    FUZZ_CHECK(std::holds_alternative<nlohmann::json>(parsed),
               "a forwarded body is one strict JSON document");
    const nlohmann::json& document = std::get<nlohmann::json>(parsed);
    FUZZ_CHECK(!outpost::envelope::check_envelope(document),
               "a forwarded body satisfies the envelope contract");
    const std::vector<std::string> levels = topic_levels(message.topic);
    FUZZ_CHECK(levels.size() == 4 && document["gatewayId"] == levels[1] &&
                   document["deviceId"] == levels[3],
               "a forwarded envelope's gatewayId and deviceId are its topic's levels");
    FUZZ_CHECK(document["eventId"] == out.keys, "KEYS is the forwarded eventId");
    FUZZ_CHECK(document["deviceId"] == out.sharding_key, "the sharding key is the deviceId");
    FUZZ_CHECK(out.tags.size() <= TagTemplate::kMaxTagLength, "a tag has at most 128 characters");
    for (char c : out.tags) FUZZ_CHECK(is_tag_char(c), "a tag holds only [A-Za-z0-9._-]");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    FuzzedDataProvider input(data, size);
    std::string tag = input.ConsumeRandomLengthString(48);
    if (!TagTemplate::compile(tag).is_ok()) tag = "${payload.severity}";
    InboundMessage message;
    message.redelivered = input.ConsumeBool();
    message.topic = input.ConsumeRandomLengthString(96);
    message.payload = input.ConsumeRemainingBytesAsString();

    const BridgeConfig config = config_for(tag);
    CheckingSink sink;
    BridgeStats stats;
    StopSignal stop;
    auto delivery = Delivery::create(config, sink, stats, stop);
    FUZZ_CHECK(delivery.is_ok(), "a compiled tag makes a delivery");
    const Verdict verdict = (*delivery)->deliver(message);

    FUZZ_CHECK(sink.sent.size() == 1, "every message is sent exactly once");
    const SinkMessage& out = sink.sent.front();
    if (verdict == Verdict::kForwarded) {
        check_forwarded(message, out);
        return 0;
    }
    FUZZ_CHECK(verdict == Verdict::kQuarantined, "a message not forwarded is quarantined");
    FUZZ_CHECK(out.topic == kQuarantineTopic, "a quarantined message goes to the quarantine topic");
    FUZZ_CHECK(out.body.size() <= config.limits.quarantine_body_bytes || out.body == "-",
               "a quarantined body is cut to quarantine_body_bytes");
    return 0;
}
