// The bridge's configuration: one JSON file (see parse_bridge_config and
// `outpost-bridge --help`). Every field has a default except the ones a
// deployment must choose: mqtt.uri, mqtt.client_id, rocketmq.name_servers,
// at least one mapping rule and the quarantine topic.
#ifndef OUTPOST_BRIDGE_CONFIG_H
#define OUTPOST_BRIDGE_CONFIG_H

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "common/envelope_contract.h"
#include "common/transport_security.h"
#include "outpost/mqtt_endpoint.h"
#include "outpost/status.h"

namespace outpost::rocketmq {
class TlsContext;
}

namespace outpost::bridge {

// The bridge's endpoint defaults where they differ from MqttEndpoint's:
// no default broker (mqtt.uri is required) and quicker reconnects.
inline MqttEndpoint bridge_endpoint_defaults() {
    MqttEndpoint endpoint;
    endpoint.uri.clear();
    endpoint.reconnect_initial = std::chrono::milliseconds(250);
    endpoint.reconnect_max = std::chrono::milliseconds(30000);
    return endpoint;
}

struct MqttConfig {
    // The broker, credentials, TLS and connection pacing (mqtt.uri,
    // client_id, username, password, tls, keepalive_s, connect_timeout_s,
    // reconnect_min_ms, reconnect_max_ms). The client id is fixed per
    // instance: the broker keeps this id's session (and the messages it has
    // not acknowledged) across crashes and restarts. Reconnect pauses are
    // capped doubling with jitter between reconnect_initial and
    // reconnect_max.
    MqttEndpoint endpoint = bridge_endpoint_defaults();
    // A password may go over tcp:// to a host that is not loopback (warned
    // about at start); refused otherwise (common/transport_security.h).
    bool allow_plaintext_credentials = false;
    // How long the broker keeps the session after a disconnect. It must
    // outlast the longest bridge restart, or queued messages are dropped.
    std::uint32_t session_expiry_s = 7 * 24 * 3600;
    // Instances with the same group share the load ($share/<group>/<filter>).
    std::string shared_group = "outpost-bridge";
    // Alarms and application events, the two topics an Outpost gateway
    // publishes with receipts: an event no bridge subscribes to is dropped
    // by the broker after its PUBACK and never answered, so a gateway
    // waiting for receipts would republish it forever. Without a mapping
    // rule, events are quarantined (unmapped_topic) and answered.
    std::vector<std::string> topic_filters = {"outpost/+/alarm/+", "outpost/+/event/+"};
    // MQTT sessions this instance runs in the shared group (session_group.h;
    // paho's one receive thread per process still takes their messages one
    // at a time). Session 0 uses client_id,
    // session i > 0 uses client_id + "-" + i: fixed ids, so every session is
    // persistent.
    int sessions = 1;
    // Session ids past the last live one that this instance drains at start
    // (0 to 64): the ids of sessions sessions .. sessions + retired_sessions
    // - 1. Each is connected, taken out of the group (UNSUBSCRIBE), what its
    // session still holds is forwarded (ack after SEND_OK as always), and
    // once quiet it disconnects with Session Expiry 0, ending the session.
    // So lowering `sessions` by up to this many strands nothing. One that has
    // no session at the broker costs one CONNECT and DISCONNECT per start.
    int retired_sessions = 8;
    // The Maximum Packet Size every session announces in CONNECT: a
    // compliant broker drops a larger message for the bridge instead of
    // delivering it, so one gateway's oversized publish is never received,
    // copied and quarantined. 0 (the default): limits.max_payload_bytes plus
    // kPacketHeadroom for the topic and properties. Set, it must exceed
    // limits.max_payload_bytes.
    std::uint32_t max_packet_size = 0;
};

// What a packet carries besides its payload, at most, in the default
// mqtt.max_packet_size: a fixed header, a topic of up to a few hundred
// bytes and a few properties.
constexpr std::uint32_t kPacketHeadroom = 16 * 1024;

// mqtt.max_packet_size, or its default from limits.max_payload_bytes.
std::uint32_t announced_max_packet_size(const MqttConfig& mqtt, std::size_t max_payload_bytes);

// The client id of session `index` (0-based) of an instance whose
// mqtt.client_id is `base`: `base` itself for session 0 (so going from one
// session to several keeps the existing session), else base + "-" + index.
std::string session_client_id(const std::string& base, int index);

// The client ids mqtt.retired_sessions names (in index order): those of
// sessions mqtt.sessions .. mqtt.sessions + mqtt.retired_sessions - 1.
std::vector<std::string> retired_client_ids(const MqttConfig& mqtt);
// TLS to every name server and broker (RocketMQ's tls.server.mode=enforcing).
struct RocketMqTlsConfig {
    bool enabled = false;
    // PEM CA the servers' certificates must chain to; empty: the system store.
    // Each certificate must also name the address dialled (IP SAN).
    std::string ca_file;
    std::string cert_file;  // client certificate and key, both or neither
    std::string key_file;
    // Accept any certificate: logged as a warning at start. Tests only.
    bool insecure_skip_verify = false;
};

struct RocketMqConfig {
    // "ip:port;ip:port". Any one answering is enough: one that is down is
    // skipped, and the one that answered last is asked first.
    std::string name_servers;
    // When set, every request is signed with this access key (a RocketMQ ACL
    // user) and the secret read from secret_file at start: the secret is never
    // in this JSON. The file must not be readable by every user.
    std::string access_key;
    std::string secret_file;
    RocketMqTlsConfig tls;
    // Signed requests (access_key) may go without TLS to name servers that
    // are not loopback (warned about at start); refused otherwise: the
    // access key travels in the clear and the answers, which the signature
    // does not cover, can be forged on the path.
    bool allow_plaintext_credentials = false;
    std::string producer_group = "outpost_bridge";
    int send_timeout_ms = 3000;  // one request: connect + write + answer
    int max_attempts = 3;        // per send, inside the producer
    // Requests on the wire at once per broker connection (the sessions share
    // one producer); sessions beyond it wait for a slot.
    int max_in_flight = 32;
    // While RocketMQ fails, the bridge holds the message and tries again after
    // pauses doubling from 100 ms up to this bound.
    int retry_pause_max_ms = 5000;
};

// MQTT topic filter -> RocketMQ topic and tag. The first matching rule wins.
struct MappingRule {
    std::string mqtt_filter;     // may use + and #
    std::string rocketmq_topic;  // ^[%|a-zA-Z0-9_-]{1,127}$
    // Literal text with ${field} placeholders naming envelope fields, e.g.
    // "${payload.severity}" or "${eventType}" (see tag_template.h).
    std::string tag = "${eventType}";
};

struct LimitsConfig {
    std::size_t max_payload_bytes = 256 * 1024;  // checked before parsing
    int max_json_depth = envelope::kMaxDepth;    // nesting of objects and arrays
    // Forwarded messages per second per instance; 0 means unlimited. The
    // message callback waits for the next slot, so every gateway waits.
    double max_messages_per_s = 0;
    // Messages sent to RocketMQ (forwarded or quarantined) per second per
    // gateway (identity.gateway_level) per instance, bursts up to one
    // second's worth; 0 means unlimited. Beyond it a gateway's message is
    // deferred without waiting (gateway_budget.h): acknowledged, not sent,
    // not confirmed, so the gateway publishes it again after its receipt
    // timeout. Needs receipts.enabled, and gateways that wait for receipts
    // (their default): one that does not loses what was deferred.
    double max_messages_per_s_per_gateway = 0;
    // A quarantined payload larger than this is cut to this many bytes (the
    // original size travels as a property). At most 4 MiB (RocketMQ's limit).
    std::size_t quarantine_body_bytes = 64 * 1024;
};

struct IdentityConfig {
    // Topic level (0-based) that holds the gateway id; the envelope's
    // gatewayId must equal it. With the broker ACL "pattern write
    // outpost/%u/#" this level is the authenticated user.
    int gateway_level = 1;
    // Topic level holding the device id, checked against deviceId; -1: no check.
    int device_level = 3;
};

struct StatusConfig {
    // When not empty, the counters are written here (atomically replaced).
    std::string file;
    int interval_ms = 10000;
    bool log_to_stderr = true;  // also one JSON line per interval on stderr
};

// The Prometheus endpoint (bridge/ops/metrics.h), as outpostd's.
struct MetricsConfig {
    // "host:port" of GET /metrics; "" (the default) turns it off. Port 0
    // picks a free port (logged).
    std::string listen;
    // Binding anything but loopback must be asked for explicitly.
    bool allow_non_loopback = false;
};

// Receipts: after SEND_OK, or for a duplicate this instance
// already forwarded, the eventId goes back to the gateway it came from on
// "<its prefix>/receipt" (common/receipt_contract.h), batched, QoS 1, over a
// connection of its own (receipt_sender.h). Best effort: a receipt that
// cannot be sent is counted and dropped, and forwarding never waits for it.
struct ReceiptsConfig {
    // On by default: a gateway that does not read receipts loses nothing
    // (the broker drops a publish nobody subscribed to). Needs the broker ACL
    // to let the bridge write outpost/+/receipt.
    bool enabled = true;
    std::size_t max_ids = 100;        // ids per receipt message (1..1000)
    int flush_ms = 100;               // the longest an id waits for its batch
    std::size_t max_queued = 100000;  // ids waiting in all; beyond: dropped, counted
};

// Forwarding in RocketMQ batches (bridge/mqtt/batched_session.h): each
// session holds up to max_messages unacknowledged MQTT messages, sends
// those of the devices on one RocketMQ queue and topic in one request, and
// acknowledges them after its SEND_OK, through our own MQTT v5 subscriber (over TCP, or
// TLS with mqtt.tls for an ssl:// mqtt.uri).
struct BatchConfig {
    // Messages per RocketMQ request, 1 to kMaxBatchMessages. 1: the
    // single-send path, one request per message, acknowledged one by one.
    int max_messages = 64;
    // Bytes per request (bodies and properties, as the producer counts
    // them), kMinBatchBytes to kMaxBatchBytes; a message that does not fit
    // starts the next batch, one larger than this goes in a batch alone.
    std::size_t max_bytes = 1024 * 1024;
    // How long the oldest message of a partial batch waits for company
    // before the batch goes out anyway: the latency batching may add.
    int linger_ms = 5;
};

// The producer's own bounds of one batch (ProducerOptions defaults).
constexpr int kMaxBatchMessages = 256;
constexpr std::size_t kMinBatchBytes = 64 * 1024;
constexpr std::size_t kMaxBatchBytes = 4u * 1024u * 1024u;

struct BridgeConfig {
    MqttConfig mqtt;
    RocketMqConfig rocketmq;
    std::vector<MappingRule> mapping;
    LimitsConfig limits;
    std::string quarantine_topic;
    IdentityConfig identity;
    std::size_t dedupe_capacity = 100000;  // eventIds remembered after SEND_OK
    StatusConfig status;
    MetricsConfig metrics;
    ReceiptsConfig receipts;  // receipts
    BatchConfig batch;
};

// True when the sessions forward in batches: batch.max_messages > 1.
bool uses_batched_path(const BridgeConfig& config);

// The broker a batched session dials, from a "tcp://host:port" or
// "ssl://host:port" uri (host: a name, an IPv4 address or a bracketed IPv6
// one). kInvalidArgument naming the uri otherwise.
struct SubscriberHost {
    std::string host;  // without brackets; an ssl:// broker's certificate must name it
    std::string port;
    bool tls = false;  // ssl://
};
Result<SubscriberHost> subscriber_host(const std::string& uri);

// The TLS context a batched session connects with, from mqtt.tls: null for
// a tcp:// uri. kInvalidArgument naming the mqtt.tls file that cannot be
// read, or a key that does not match its certificate.
Result<std::shared_ptr<const rocketmq::TlsContext>> subscriber_tls(const MqttConfig& mqtt);

// `where` as the numeric "ip:port" or "[ipv6]:port" the v5 subscriber
// dials; a name is looked up (getaddrinfo, the first address). A batched
// session resolves once, before its first connection, so no lookup can
// block it while it holds messages. kUnavailable when the lookup fails.
Result<std::string> resolve_subscriber_address(const SubscriberHost& where);

// Each leg as the transport rules see it (common/transport_security.h).
// `tls_settings_given`: the configuration has an mqtt.tls object, or
// rocketmq.tls fields besides `enabled`.
LegSecurity mqtt_leg_security(const MqttConfig& mqtt, bool tls_settings_given = false);
LegSecurity rocketmq_leg_security(const RocketMqConfig& rocketmq, bool tls_settings_given = false);

// Parses and validates a configuration document. Fails with
// kInvalidArgument; the message lists every problem found, one per line,
// each naming the field ("mqtt.keepalive_s must be an integer from 5 to
// 65535"). Unknown fields are errors (they are usually typos). The second
// form also gives, in *keys_read, the path of every key the parser asked for
// (common/json_object_reader.h).
Result<BridgeConfig> parse_bridge_config(const std::string& json_text);
Result<BridgeConfig> parse_bridge_config(const std::string& json_text,
                                         std::set<std::string>* keys_read);

// Reads `path` and parses it. kNotFound when the file cannot be read.
Result<BridgeConfig> load_bridge_config(const std::string& path);

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_CONFIG_H
