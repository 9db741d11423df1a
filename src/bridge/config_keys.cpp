#include "bridge/config_keys.h"

#include <chrono>

namespace outpost::bridge {
namespace {

using T = ConfigKeyType;

}  // namespace

ConfigKeys bridge_config_keys(const BridgeConfig& shown) {
    const MqttConfig& mqtt = shown.mqtt;
    const MqttEndpoint& endpoint = mqtt.endpoint;
    const RocketMqConfig& rocketmq = shown.rocketmq;
    const MappingRule rule = shown.mapping.empty() ? MappingRule{} : shown.mapping.front();
    const LimitsConfig& limits = shown.limits;
    ConfigKeys keys = {config_section("mqtt", true, "The MQTT side: the gateways' broker.")};
    const ConfigKeys endpoint_keys = mqtt_endpoint_keys(
        "mqtt", endpoint, true,
        "This instance's client id, fixed for its life: the broker keeps its session across "
        "restarts. Sessions i > 0 use <client_id>-i, receipts <client_id>-receipts.",
        "bridge-1");
    keys.insert(keys.end(), endpoint_keys.begin(), endpoint_keys.end());
    const ConfigKeys rest = {
        config_key("mqtt.allow_plaintext_credentials", T::kBoolean,
                   mqtt.allow_plaintext_credentials, "",
                   "Allow the password over tcp:// to a host that is not loopback (warned at every "
                   "start); refused otherwise."),
        config_key(
            "mqtt.session_expiry_s", T::kInteger, mqtt.session_expiry_s, "s",
            "How long the broker keeps the session and its queued alarms after a disconnect: "
            "it must outlast the longest bridge outage."),
        config_key(
            "mqtt.shared_group", T::kString, mqtt.shared_group, "",
            "The shared-subscription group ($share/<group>/<filter>); instances in one group "
            "share the load."),
        config_key("mqtt.topic_filters", T::kStringList, mqtt.topic_filters, "",
                   "The filters subscribed to; events need a mapping rule too, or they are "
                   "quarantined as unmapped_topic."),
        config_key(
            "mqtt.connect_timeout_s", T::kInteger,
            std::chrono::duration_cast<std::chrono::seconds>(endpoint.connect_timeout).count(), "s",
            "How long one connection attempt may take; with session processes also the longest "
            "wait for them all before READY=1. 1 to 300."),
        config_key("mqtt.reconnect_min_ms", T::kInteger, endpoint.reconnect_initial.count(), "ms",
                   "First pause after a failed or lost connection; pauses double up to "
                   "reconnect_max_ms. Also paces restarts of session processes."),
        config_key("mqtt.reconnect_max_ms", T::kInteger, endpoint.reconnect_max.count(), "ms",
                   "Longest pause between reconnect attempts; not below reconnect_min_ms."),
        config_key("mqtt.sessions", T::kInteger, mqtt.sessions, "sessions",
                   "Persistent sessions in the shared group, 1 to 64; more than 1: one process per "
                   "session, each with its own client id."),
        config_key("mqtt.retired_sessions", T::kInteger, mqtt.retired_sessions, "sessions",
                   "Ids <client_id>-<sessions> onwards, this many, drained and ended at start: "
                   "lowering sessions strands nothing. 0 to 64."),
        config_key(
            "mqtt.max_packet_size", T::kInteger, mqtt.max_packet_size, "bytes",
            "Maximum Packet Size announced in CONNECT (the broker drops larger messages for the "
            "bridge); 0: limits.max_payload_bytes + 16384."),
        config_section("rocketmq", true, "The RocketMQ side."),
        required_config_key(
            "rocketmq.name_servers", T::kStringOrStringList, rocketmq.name_servers,
            "127.0.0.1:9876",
            "Name servers, \"ip:port;ip:port\" or an array, numeric IPv4 only; any one "
            "answering is enough."),
        config_key("rocketmq.access_key", T::kString, rocketmq.access_key, "",
                   "A RocketMQ ACL user: every request is signed with it and the secret in "
                   "secret_file."),
        config_key(
            "rocketmq.secret_file", T::kString, rocketmq.secret_file, "",
            "File holding the secret key, not readable by every user; the secret is never in "
            "this file."),
        config_section("rocketmq.tls", false, "TLS to every name server and broker."),
        config_key("rocketmq.tls.enabled", T::kBoolean, rocketmq.tls.enabled, "",
                   "Use TLS (1.2 at least); must be true when another rocketmq.tls key is set."),
        config_key(
            "rocketmq.tls.ca_file", T::kString, rocketmq.tls.ca_file, "",
            "PEM CA the servers' certificates must chain to (IP SAN of the address dialled); "
            "empty: the system trust store."),
        config_key("rocketmq.tls.cert_file", T::kString, rocketmq.tls.cert_file, "",
                   "PEM client certificate; together with key_file."),
        config_key("rocketmq.tls.key_file", T::kString, rocketmq.tls.key_file, "",
                   "PEM key of the client certificate."),
        config_key("rocketmq.tls.insecure_skip_verify", T::kBoolean,
                   rocketmq.tls.insecure_skip_verify, "",
                   "Accept any server certificate (test brokers only): warned at start, shown in "
                   "the status and the metrics."),
        config_key(
            "rocketmq.allow_plaintext_credentials", T::kBoolean,
            rocketmq.allow_plaintext_credentials, "",
            "Allow access_key without TLS to name servers that are not loopback (warned at every "
            "start); refused otherwise."),
        config_key("rocketmq.producer_group", T::kString, rocketmq.producer_group, "",
                   "The producer group; letters, digits, %, |, _ and -."),
        config_key("rocketmq.send_timeout_ms", T::kInteger, rocketmq.send_timeout_ms, "ms",
                   "One request: connect, write and answer."),
        config_key("rocketmq.max_attempts", T::kInteger, rocketmq.max_attempts, "attempts",
                   "Attempts per send inside the producer; after them the bridge pauses and sends "
                   "again, without limit."),
        config_key("rocketmq.max_in_flight", T::kInteger, rocketmq.max_in_flight, "requests",
                   "Requests on the wire at once per broker connection; sessions beyond it wait."),
        config_key(
            "rocketmq.retry_pause_max_ms", T::kInteger, rocketmq.retry_pause_max_ms, "ms",
            "While RocketMQ fails, the held message is sent again after pauses doubling from "
            "100 ms up to this."),
        {"mapping", T::kObjectList, true, nullptr, nullptr, "",
         "Rules from MQTT topic to RocketMQ topic and tag; the first matching rule wins (one "
         "shown)."},
        required_config_key("mapping[].mqtt_filter", T::kString, rule.mqtt_filter,
                            "outpost/+/alarm/+", "An MQTT topic filter (+ and # allowed)."),
        required_config_key("mapping[].rocketmq_topic", T::kString, rule.rocketmq_topic,
                            "outpost_alarms", "The RocketMQ topic, ^[%|a-zA-Z0-9_-]{1,127}$."),
        config_key("mapping[].tag", T::kString, rule.tag, "",
                   "The message tag: literal [A-Za-z0-9._-] text and ${field.path} placeholders "
                   "naming envelope fields, e.g. \"${payload.severity}\"."),
        config_section("limits", false, "What the bridge accepts."),
        config_key("limits.max_payload_bytes", T::kInteger, limits.max_payload_bytes, "bytes",
                   "Larger payloads are quarantined as payload_too_large before parsing."),
        config_key("limits.max_json_depth", T::kInteger, limits.max_json_depth, "levels",
                   "Deepest nesting of objects and arrays; deeper is json_too_deep."),
        config_key("limits.max_messages_per_s", T::kNumber, limits.max_messages_per_s, "messages/s",
                   "Forwarded messages per second per instance; the callback waits for a slot, "
                   "so every gateway waits. 0: unlimited."),
        config_key("limits.max_messages_per_s_per_gateway", T::kNumber,
                   limits.max_messages_per_s_per_gateway, "messages/s",
                   "Messages sent per second per gateway per instance; beyond it one is deferred "
                   "(acknowledged, not sent, not confirmed: the gateway sends it again after its "
                   "receipt timeout) without slowing the others. Needs receipts. 0: unlimited."),
        config_key(
            "limits.quarantine_body_bytes", T::kInteger, limits.quarantine_body_bytes, "bytes",
            "A quarantined payload is cut to this many bytes (the original size travels as a "
            "property)."),
        required_config_key("quarantine_topic", T::kString, shown.quarantine_topic,
                            "outpost_quarantine",
                            "The RocketMQ topic invalid messages go to, TAGS = reason."),
        config_section("identity", false, "Which topic levels name the gateway and the device."),
        config_key("identity.gateway_level", T::kInteger, shown.identity.gateway_level,
                   "topic level", "The topic level (0-based) the envelope's gatewayId must equal."),
        config_key("identity.device_level", T::kInteger, shown.identity.device_level, "topic level",
                   "The topic level the envelope's deviceId must equal; -1: no check."),
        config_key("dedupe_capacity", T::kInteger, shown.dedupe_capacity, "eventIds",
                   "Recently forwarded eventIds remembered per process; a redelivery of one is "
                   "acknowledged without a second send. 0: off."),
        config_section("status", false, "The status line."),
        config_key("status.file", T::kString, shown.status.file, "",
                   "When set, the status line is also written to this file (replaced atomically)."),
        config_key("status.interval_ms", T::kInteger, shown.status.interval_ms, "ms",
                   "How often the status line is written."),
        config_key("status.log_to_stderr", T::kBoolean, shown.status.log_to_stderr, "",
                   "Also write the status line to stderr."),
        config_section("metrics", false, "The Prometheus endpoint."),
        config_key(
            "metrics.listen", T::kString, shown.metrics.listen, "",
            "host:port of GET /metrics, e.g. \"127.0.0.1:9465\"; \"\" = off; port 0 picks one."),
        config_key("metrics.allow_non_loopback", T::kBoolean, shown.metrics.allow_non_loopback, "",
                   "Allow listen on an address that is not loopback (the endpoint has no "
                   "authentication)."),
        config_section(
            "receipts", false,
            "The eventIds forwarded, sent back to their gateways on their own connection."),
        config_key("receipts.enabled", T::kBoolean, shown.receipts.enabled, "",
                   "Send receipts; a gateway that does not wait for them loses nothing."),
        config_key("receipts.max_ids", T::kInteger, shown.receipts.max_ids, "eventIds",
                   "eventIds per receipt message. 1 to 1000."),
        config_key("receipts.flush_ms", T::kInteger, shown.receipts.flush_ms, "ms",
                   "The longest an eventId waits for its batch to fill."),
        config_key(
            "receipts.max_queued", T::kInteger, shown.receipts.max_queued, "eventIds",
            "eventIds waiting to be sent, over all gateways; beyond it new ones are dropped and "
            "counted."),
        config_section("batch", false,
                       "Forwarding in RocketMQ batches: one request per RocketMQ queue and topic "
                       "for up to max_messages messages of the devices on that queue, each "
                       "acknowledged after that request's "
                       "SEND_OK, over tcp:// or ssl:// (with mqtt.tls)."),
        config_key("batch.max_messages", T::kInteger, shown.batch.max_messages, "messages",
                   "Messages per RocketMQ request, 1 to 256; 1: one request per message, "
                   "through paho."),
        config_key("batch.max_bytes", T::kInteger, shown.batch.max_bytes, "bytes",
                   "Bytes per request (bodies and properties), 65536 to 4194304; a larger "
                   "message goes alone."),
        config_key("batch.linger_ms", T::kInteger, shown.batch.linger_ms, "ms",
                   "How long the oldest message of a partial batch waits for company: the "
                   "latency batching may add. 0 to 10000."),
    };
    keys.insert(keys.end(), rest.begin(), rest.end());
    return keys;
}

}  // namespace outpost::bridge
