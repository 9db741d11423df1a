// The bridge's configuration parser (bridge/config.h). Properties: a
// configuration it accepts re-validates: written back as JSON (every field,
// see written()) it parses again to the same configuration; its mapping
// makes a Delivery (every tag compiles); its topics are valid RocketMQ
// topics and its filters valid MQTT filters; and what decides acceptance
// is the JSON data, not its layout (the same document dumped compactly
// parses the same).
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "bridge/config.h"
#include "bridge/delivery.h"
#include "bridge/mqtt/topic_filter.h"
#include "common/text_checks.h"
#include "config_round_trip.h"
#include "fuzz_check.h"
#include "rocketmq/validation.h"

namespace {

using namespace outpost::bridge;
using nlohmann::json;

json written(const BridgeConfig& c) {
    json mapping = json::array();
    for (const MappingRule& rule : c.mapping) {
        mapping.push_back({{"mqtt_filter", rule.mqtt_filter},
                           {"rocketmq_topic", rule.rocketmq_topic},
                           {"tag", rule.tag}});
    }
    const MqttConfig& m = c.mqtt;
    const outpost::MqttEndpoint& e = m.endpoint;
    json written_config = {
        {"mqtt",
         {{"uri", e.uri},
          {"client_id", e.client_id},
          {"username", e.username},
          {"password", e.password},
          {"allow_plaintext_credentials", m.allow_plaintext_credentials},
          {"max_packet_size", m.max_packet_size},
          {"session_expiry_s", m.session_expiry_s},
          {"shared_group", m.shared_group},
          {"topic_filters", m.topic_filters},
          {"keepalive_s", e.keepalive.count()},
          {"connect_timeout_s",
           std::chrono::duration_cast<std::chrono::seconds>(e.connect_timeout).count()},
          {"reconnect_min_ms", e.reconnect_initial.count()},
          {"reconnect_max_ms", e.reconnect_max.count()}}},
        {"rocketmq",
         {{"name_servers", c.rocketmq.name_servers},
          {"producer_group", c.rocketmq.producer_group},
          {"send_timeout_ms", c.rocketmq.send_timeout_ms},
          {"max_attempts", c.rocketmq.max_attempts},
          {"retry_pause_max_ms", c.rocketmq.retry_pause_max_ms},
          {"allow_plaintext_credentials", c.rocketmq.allow_plaintext_credentials}}},
        {"mapping", mapping},
        {"limits",
         {{"max_payload_bytes", c.limits.max_payload_bytes},
          {"max_json_depth", c.limits.max_json_depth},
          {"max_messages_per_s", c.limits.max_messages_per_s},
          {"quarantine_body_bytes", c.limits.quarantine_body_bytes}}},
        {"quarantine_topic", c.quarantine_topic},
        {"identity",
         {{"gateway_level", c.identity.gateway_level}, {"device_level", c.identity.device_level}}},
        {"dedupe_capacity", c.dedupe_capacity},
        {"status",
         {{"file", c.status.file},
          {"interval_ms", c.status.interval_ms},
          {"log_to_stderr", c.status.log_to_stderr}}},
    };
    // TLS settings belong to an ssl:// URI only: next to tcp:// they are a
    // configuration error.
    if (e.uri.rfind("ssl://", 0) == 0) {
        written_config["mqtt"]["tls"] = {{"ca_file", e.tls.ca_file},
                                         {"cert_file", e.tls.cert_file},
                                         {"key_file", e.tls.key_file},
                                         {"key_password", e.tls.key_password},
                                         {"verify_server", e.tls.verify_server}};
    }
    return written_config;
}

class NoSink final : public MessageSink {
  public:
    outpost::Status send(const SinkMessage&, std::optional<std::int32_t>*) override {
        return outpost::Status::ok();
    }
    outpost::Status send_batch(const std::vector<SinkMessage>&,
                               std::optional<std::int32_t>*) override {
        return outpost::Status::ok();
    }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::optional<BridgeConfig> config = accepted_config(
        std::string(reinterpret_cast<const char*>(data), size), &parse_bridge_config, written);
    if (!config) return 0;

    NoSink sink;
    BridgeStats stats;
    StopSignal stop;
    FUZZ_CHECK(Delivery::create(*config, sink, stats, stop).is_ok(),
               "an accepted mapping makes a delivery");
    FUZZ_CHECK(!config->mapping.empty(), "an accepted configuration maps something");
    for (const MappingRule& rule : config->mapping) {
        FUZZ_CHECK(is_valid_topic_filter(rule.mqtt_filter), "a mapping filter is valid");
        FUZZ_CHECK(outpost::rocketmq::validate_topic(rule.rocketmq_topic).is_ok(),
                   "a mapping topic is a valid RocketMQ topic");
    }
    FUZZ_CHECK(outpost::rocketmq::validate_topic(config->quarantine_topic).is_ok(),
               "the quarantine topic is a valid RocketMQ topic");
    FUZZ_CHECK(outpost::is_valid_identifier(config->mqtt.endpoint.client_id),
               "the MQTT client id is an identifier");
    FUZZ_CHECK(config->mqtt.endpoint.reconnect_initial <= config->mqtt.endpoint.reconnect_max,
               "reconnect pauses are ordered");
    FUZZ_CHECK(config->identity.gateway_level != config->identity.device_level,
               "gateway and device levels differ");
    return 0;
}
