// JSON -> BridgeConfig. Every problem is reported with the path of its field,
// and all problems are reported at once, so one edit fixes the file.
#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "bridge/config.h"
#include "bridge/mqtt/topic_filter.h"
#include "bridge/rocketmq/tag_template.h"
#include "common/json_object_reader.h"
#include "common/listen_address.h"
#include "common/mqtt_endpoint_reader.h"
#include "common/receipt_contract.h"
#include "common/text_checks.h"
#include "rocketmq/validation.h"

namespace outpost::bridge {
namespace {

using nlohmann::json;

// "ip:port" with a numeric IPv4 address (the producer never resolves names).
bool is_numeric_address(const std::string& address) {
    const std::size_t colon = address.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == address.size()) return false;
    for (std::size_t i = 0; i < address.size(); ++i) {
        const char c = address[i];
        const bool ok = i == colon || (c >= '0' && c <= '9') || (c == '.' && i < colon);
        if (!ok) return false;
    }
    return true;
}

void read_mqtt(JsonObjectReader& in, MqttConfig& mqtt) {
    MqttEndpoint& endpoint = mqtt.endpoint;
    read_mqtt_endpoint(in, endpoint, true);
    in.read_bool("allow_plaintext_credentials", mqtt.allow_plaintext_credentials);
    check_leg_security(mqtt_leg_security(mqtt, in.find("tls") != nullptr), in);
    in.read_integer("session_expiry_s", mqtt.session_expiry_s, 1, 0xFFFFFFFFLL);
    in.read_string("shared_group", mqtt.shared_group);
    if (!is_valid_identifier(mqtt.shared_group)) {
        in.error("shared_group", "must match [A-Za-z0-9._-]{1,64}");
    }
    in.read_string_list("topic_filters", mqtt.topic_filters);
    for (const std::string& filter : mqtt.topic_filters) {
        if (!is_valid_topic_filter(filter)) {
            in.error("topic_filters", "holds \"" + filter +
                                          "\", which is not a valid MQTT topic filter (and "
                                          "must not start with $share/)");
        }
    }
    int64_t connect_timeout_s =
        std::chrono::duration_cast<std::chrono::seconds>(endpoint.connect_timeout).count();
    in.read_integer("connect_timeout_s", connect_timeout_s, 1, 300);
    endpoint.connect_timeout = std::chrono::seconds(connect_timeout_s);
    int64_t reconnect_min_ms = endpoint.reconnect_initial.count();
    int64_t reconnect_max_ms = endpoint.reconnect_max.count();
    in.read_integer("reconnect_min_ms", reconnect_min_ms, 10, 600000);
    in.read_integer("reconnect_max_ms", reconnect_max_ms, 10, 3600000);
    endpoint.reconnect_initial = std::chrono::milliseconds(reconnect_min_ms);
    endpoint.reconnect_max = std::chrono::milliseconds(reconnect_max_ms);
    if (reconnect_max_ms < reconnect_min_ms) {
        in.error("reconnect_max_ms", "must not be below mqtt.reconnect_min_ms");
    }
    in.read_integer("sessions", mqtt.sessions, 1, 64);
    in.read_integer("retired_sessions", mqtt.retired_sessions, 0, 64);
    // 0 or MQTT's own bounds; checked against limits.max_payload_bytes below.
    in.read_integer("max_packet_size", mqtt.max_packet_size, 0, 268435460);
    const int last = mqtt.sessions + mqtt.retired_sessions - 1;
    const std::string last_id = session_client_id(endpoint.client_id, last);
    if (!endpoint.client_id.empty() && !is_valid_identifier(last_id)) {
        in.error("sessions", std::to_string(mqtt.sessions) + " sessions and " +
                                 std::to_string(mqtt.retired_sessions) +
                                 " retired_sessions need client id \"" + last_id +
                                 "\", which is over 64 characters: shorten mqtt.client_id");
    }
}

void read_rocketmq(JsonObjectReader& in, RocketMqConfig& rocketmq) {
    std::vector<std::string> servers;
    if (const json* value = in.find("name_servers", true); value != nullptr) {
        if (value->is_string()) {
            std::stringstream list(value->get<std::string>());
            for (std::string item; std::getline(list, item, ';');) {
                if (!item.empty()) servers.push_back(item);
            }
        } else {
            in.read_string_list("name_servers", servers);
        }
        if (servers.empty()) in.error("name_servers", "must list at least one \"ip:port\"");
    }
    for (const std::string& server : servers) {
        if (!is_numeric_address(server)) {
            in.error("name_servers", "holds \"" + server + "\"; use a numeric \"ip:port\"");
        }
        rocketmq.name_servers += (rocketmq.name_servers.empty() ? "" : ";") + server;
    }
    in.read_string("access_key", rocketmq.access_key);
    in.read_string("secret_file", rocketmq.secret_file);
    if (rocketmq.access_key.empty() != rocketmq.secret_file.empty()) {
        in.error(rocketmq.access_key.empty() ? "secret_file" : "access_key",
                 "needs rocketmq.access_key and rocketmq.secret_file together (the secret itself "
                 "is never in this file)");
    }
    if (in.find_refused("secret_key") != nullptr || in.find_refused("secret") != nullptr) {
        in.error("secret_key",
                 "is not accepted here: put the secret in a file only the bridge "
                 "can read and name it in rocketmq.secret_file");
    }
    bool tls_fields_given = false;
    in.read_object("tls", false, [&](JsonObjectReader& tls) {
        tls.read_bool("enabled", rocketmq.tls.enabled);
        tls.read_string("ca_file", rocketmq.tls.ca_file);
        tls.read_string("cert_file", rocketmq.tls.cert_file);
        tls.read_string("key_file", rocketmq.tls.key_file);
        tls.read_bool("insecure_skip_verify", rocketmq.tls.insecure_skip_verify);
        if (rocketmq.tls.cert_file.empty() != rocketmq.tls.key_file.empty()) {
            tls.error("cert_file", "and rocketmq.tls.key_file must be given together");
        }
        tls_fields_given = !rocketmq.tls.ca_file.empty() || !rocketmq.tls.cert_file.empty() ||
                           rocketmq.tls.insecure_skip_verify;
    });
    in.read_bool("allow_plaintext_credentials", rocketmq.allow_plaintext_credentials);
    check_leg_security(rocketmq_leg_security(rocketmq, tls_fields_given), in);
    in.read_string("producer_group", rocketmq.producer_group);
    if (!rocketmq::validate_topic(rocketmq.producer_group).is_ok()) {
        in.error("producer_group", "may only use letters, digits, '%', '|', '_' and '-'");
    }
    in.read_integer("send_timeout_ms", rocketmq.send_timeout_ms, 100, 600000);
    in.read_integer("max_attempts", rocketmq.max_attempts, 1, 16);
    in.read_integer("max_in_flight", rocketmq.max_in_flight, 1, 1024);
    in.read_integer("retry_pause_max_ms", rocketmq.retry_pause_max_ms, 100, 600000);
}

void read_mapping(JsonObjectReader& in, std::vector<MappingRule>& mapping,
                  std::vector<std::string>& errors) {
    const json* value = in.find("mapping", true);
    if (value == nullptr) return;
    if (!value->is_array() || value->empty()) {
        return in.error("mapping", "must be a non-empty array of rules");
    }
    for (std::size_t i = 0; i < value->size(); ++i) {
        const std::string path = "mapping[" + std::to_string(i) + "]";
        if (!(*value)[i].is_object()) {
            errors.push_back(path + " must be an object");
            continue;
        }
        MappingRule rule;
        JsonObjectReader item = in.element_reader("mapping", i, (*value)[i]);
        item.read_string("mqtt_filter", rule.mqtt_filter, true);
        if (!rule.mqtt_filter.empty() && !is_valid_topic_filter(rule.mqtt_filter)) {
            item.error("mqtt_filter", "is not a valid MQTT topic filter");
        }
        item.read_string("rocketmq_topic", rule.rocketmq_topic, true);
        if (Status valid = rocketmq::validate_topic(rule.rocketmq_topic);
            !rule.rocketmq_topic.empty() && !valid.is_ok()) {
            item.error("rocketmq_topic", "is invalid: " + valid.message());
        }
        item.read_string("tag", rule.tag);
        if (Result<TagTemplate> tag = TagTemplate::compile(rule.tag); !tag.is_ok()) {
            item.error("tag", "is invalid: " + tag.status().message());
        }
        item.report_unknown_fields();
        mapping.push_back(std::move(rule));
    }
}

// A rate in messages per second: a number >= 0, 0 meaning unlimited.
void read_rate(JsonObjectReader& in, const char* name, double& rate) {
    if (const json* given = in.find(name); given != nullptr) {
        if (!given->is_number() || given->get<double>() < 0) {
            in.error(name, "must be a number >= 0 (0: unlimited)");
        } else {
            rate = given->get<double>();
        }
    }
}

void read_limits(JsonObjectReader& in, LimitsConfig& limits) {
    in.read_integer("max_payload_bytes", limits.max_payload_bytes, 1, 268435455);
    in.read_integer("max_json_depth", limits.max_json_depth, 1, 1000);
    read_rate(in, "max_messages_per_s", limits.max_messages_per_s);
    read_rate(in, "max_messages_per_s_per_gateway", limits.max_messages_per_s_per_gateway);
    in.read_integer("quarantine_body_bytes", limits.quarantine_body_bytes, 1,
                    static_cast<std::int64_t>(rocketmq::kMaxBodyBytes));
}

void read_identity(JsonObjectReader& in, IdentityConfig& identity) {
    in.read_integer("gateway_level", identity.gateway_level, 0, 31);
    in.read_integer("device_level", identity.device_level, -1, 31);
    if (identity.device_level == identity.gateway_level) {
        in.error("device_level", "must differ from identity.gateway_level");
    }
    // MQTT brokers pass user properties that publishers set through to
    // subscribers (mosquitto 2.0.11 among them), so a property "stamped with
    // the identity" could be forged by any gateway: the broker's ACL on the
    // topic is what binds a gateway to its level.
    if (in.find_refused("user_property") != nullptr) {
        in.error("user_property",
                 "is not accepted: brokers pass a user property set by the publisher through "
                 "to the bridge, so any gateway could forge it. The broker's ACL binds each "
                 "gateway to its topic level; remove this field");
    }
}

void read_status(JsonObjectReader& in, StatusConfig& status) {
    in.read_string("file", status.file);
    in.read_integer("interval_ms", status.interval_ms, 100, 3600000);
    in.read_bool("log_to_stderr", status.log_to_stderr);
}

void read_metrics(JsonObjectReader& in, MetricsConfig& metrics) {
    in.read_string("listen", metrics.listen);
    in.read_bool("allow_non_loopback", metrics.allow_non_loopback);
    if (metrics.listen.empty()) return;
    Result<ListenAddress> address =
        parse_metrics_listen_address(metrics.listen, metrics.allow_non_loopback);
    if (!address.is_ok()) in.error("listen", address.status().message());
}

// receipts
void read_receipts(JsonObjectReader& in, ReceiptsConfig& receipts) {
    in.read_bool("enabled", receipts.enabled);
    in.read_integer("max_ids", receipts.max_ids, 1,
                    static_cast<std::int64_t>(receipt::kMaxReceiptIds));
    in.read_integer("flush_ms", receipts.flush_ms, 1, 60000);
    in.read_integer("max_queued", receipts.max_queued, 1, 10000000);
}

void read_batch(JsonObjectReader& in, BatchConfig& batch) {
    in.read_integer("max_messages", batch.max_messages, 1, kMaxBatchMessages);
    in.read_integer("max_bytes", batch.max_bytes, static_cast<std::int64_t>(kMinBatchBytes),
                    static_cast<std::int64_t>(kMaxBatchBytes));
    in.read_integer("linger_ms", batch.linger_ms, 0, 10000);
}

}  // namespace

LegSecurity mqtt_leg_security(const MqttConfig& mqtt, bool tls_settings_given) {
    return outpost::mqtt_leg_security("mqtt", mqtt.endpoint, mqtt.allow_plaintext_credentials,
                                      tls_settings_given);
}

LegSecurity rocketmq_leg_security(const RocketMqConfig& rocketmq, bool tls_settings_given) {
    LegSecurity leg;
    leg.section = "rocketmq";
    leg.encrypted = rocketmq.tls.enabled;
    leg.plaintext_because = "rocketmq.tls.enabled is false";
    leg.tls_settings_given = tls_settings_given;
    leg.verify_server = !rocketmq.tls.insecure_skip_verify;
    std::stringstream list(rocketmq.name_servers);
    for (std::string server; std::getline(list, server, ';');) leg.hosts.push_back(host_of(server));
    if (!rocketmq.access_key.empty()) leg.credential_field = "access_key";
    leg.allow_plaintext_credentials = rocketmq.allow_plaintext_credentials;
    return leg;
}

std::string session_client_id(const std::string& base, int index) {
    return index == 0 ? base : base + "-" + std::to_string(index);
}

std::uint32_t announced_max_packet_size(const MqttConfig& mqtt, std::size_t max_payload_bytes) {
    if (mqtt.max_packet_size != 0) return mqtt.max_packet_size;
    constexpr std::size_t kLargest = 268435460;  // MQTT's own largest packet
    return static_cast<std::uint32_t>(std::min(kLargest, max_payload_bytes + kPacketHeadroom));
}

std::vector<std::string> retired_client_ids(const MqttConfig& mqtt) {
    std::vector<std::string> ids;
    for (int index = mqtt.sessions; index < mqtt.sessions + mqtt.retired_sessions; ++index) {
        ids.push_back(session_client_id(mqtt.endpoint.client_id, index));
    }
    return ids;
}

Result<BridgeConfig> parse_bridge_config(const std::string& json_text) {
    return parse_bridge_config(json_text, nullptr);
}

Result<BridgeConfig> parse_bridge_config(const std::string& json_text,
                                         std::set<std::string>* keys_read) {
    Result<json> parsed = parse_config_object(json_text);
    if (!parsed.is_ok()) return parsed.status();
    const json& document = *parsed;
    BridgeConfig config;
    std::vector<std::string> errors;
    {
        JsonObjectReader top(document, "", errors, keys_read);
        top.read_object("mqtt", true, [&](JsonObjectReader& in) { read_mqtt(in, config.mqtt); });
        top.read_object("rocketmq", true,
                        [&](JsonObjectReader& in) { read_rocketmq(in, config.rocketmq); });
        read_mapping(top, config.mapping, errors);
        top.read_object("limits", false,
                        [&](JsonObjectReader& in) { read_limits(in, config.limits); });
        top.read_string("quarantine_topic", config.quarantine_topic, true);
        if (Status valid = rocketmq::validate_topic(config.quarantine_topic);
            !config.quarantine_topic.empty() && !valid.is_ok()) {
            top.error("quarantine_topic", "is invalid: " + valid.message());
        }
        top.read_object("identity", false,
                        [&](JsonObjectReader& in) { read_identity(in, config.identity); });
        if (config.mqtt.max_packet_size != 0 &&
            config.mqtt.max_packet_size <= config.limits.max_payload_bytes) {
            top.error("mqtt", "max_packet_size must exceed limits.max_payload_bytes (" +
                                  std::to_string(config.limits.max_payload_bytes) +
                                  "), or payloads the bridge accepts would never reach it");
        }
        top.read_integer("dedupe_capacity", config.dedupe_capacity, 0, 10000000);
        top.read_object("status", false,
                        [&](JsonObjectReader& in) { read_status(in, config.status); });
        top.read_object("metrics", false,
                        [&](JsonObjectReader& in) { read_metrics(in, config.metrics); });
        top.read_object("receipts", false,  // receipts
                        [&](JsonObjectReader& in) { read_receipts(in, config.receipts); });
        top.read_object("batch", false,
                        [&](JsonObjectReader& in) { read_batch(in, config.batch); });
        // The uri must be one the v5 subscriber can dial (another scheme is
        // already reported).
        const std::string& uri = config.mqtt.endpoint.uri;
        if (uses_batched_path(config) &&
            (uri.rfind("tcp://", 0) == 0 || uri.rfind("ssl://", 0) == 0)) {
            if (Result<SubscriberHost> address = subscriber_host(config.mqtt.endpoint.uri);
                !address.is_ok()) {
                top.error("mqtt.uri", address.status().message());
            }
        }
        // A deferred message comes back only as a gateway's republish after a
        // missing receipt (gateway_budget.h).
        if (config.limits.max_messages_per_s_per_gateway > 0 && !config.receipts.enabled) {
            top.error("limits",
                      "max_messages_per_s_per_gateway needs receipts.enabled: a message deferred "
                      "over the budget is published again only by a gateway waiting for its "
                      "receipt; without receipts it would be lost");
        }
        top.report_unknown_fields();
    }
    if (!errors.empty()) {
        return Status::error(StatusCode::kInvalidArgument, describe_config_problems(errors));
    }
    return config;
}

Result<BridgeConfig> load_bridge_config(const std::string& path) {
    Result<std::string> text = read_config_file(path);
    if (!text.is_ok()) return text.status();
    Result<BridgeConfig> config = parse_bridge_config(*text);
    if (!config.is_ok()) return config.status().with_context(path);
    return config;
}

}  // namespace outpost::bridge
