// The bridge configuration: a valid file parses with its defaults, and every
// mistake is reported with the path of the field that holds it.
#include "bridge/config.h"
#include "bridge/ops/weakened_security.h"
#include "bridge/processes/session_child.h"
#include "common/transport_security.h"
#include "rocketmq/tls_socket.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

using outpost::StatusCode;
using namespace outpost::bridge;

namespace {

const char* const kMinimal = R"({
  "mqtt": {"uri": "tcp://127.0.0.1:1883", "client_id": "bridge-1"},
  "rocketmq": {"name_servers": "127.0.0.1:9876"},
  "mapping": [{"mqtt_filter": "outpost/+/alarm/+", "rocketmq_topic": "outpost_alarms"}],
  "quarantine_topic": "outpost_quarantine"
})";

// The error message of parsing `text`, which must fail.
std::string error_of(const std::string& text) {
    auto config = parse_bridge_config(text);
    REQUIRE_FALSE(config.is_ok());
    CHECK(config.status().code() == StatusCode::kInvalidArgument);
    return config.status().message();
}

// kMinimal with `from` replaced by `to` (which must occur).
std::string edited(const std::string& from, const std::string& to) {
    std::string text = kMinimal;
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

// kMinimal with `extra` members appended to the rocketmq object.
std::string config_with(const std::string& extra) {
    return edited(R"("127.0.0.1:9876")", R"("127.0.0.1:9876")" + extra);
}

// `text` with `insertion` put before `marker` (which must occur).
std::string inserted_before(std::string text, const std::string& marker,
                            const std::string& insertion) {
    const auto at = text.find(marker);
    REQUIRE(at != std::string::npos);
    return text.insert(at, insertion);
}

}  // namespace

TEST_CASE("a minimal configuration parses and gets the documented defaults") {
    auto config = parse_bridge_config(kMinimal);
    REQUIRE(config.is_ok());
    CHECK(config->mqtt.endpoint.client_id == "bridge-1");
    CHECK(config->mqtt.session_expiry_s == 604800u);
    CHECK(config->mqtt.shared_group == "outpost-bridge");
    CHECK(config->mqtt.topic_filters ==
          std::vector<std::string>{"outpost/+/alarm/+", "outpost/+/event/+"});
    CHECK(config->mapping.size() == 1);
    CHECK(config->mapping[0].tag == "${eventType}");
    CHECK(config->limits.max_json_depth == 16);
    CHECK(config->identity.gateway_level == 1);
    CHECK(config->dedupe_capacity == 100000u);
}

TEST_CASE("a full configuration parses every field") {
    auto config = parse_bridge_config(R"({
      "mqtt": {"uri": "ssl://10.0.0.5:8883", "client_id": "bridge-2", "username": "bridge",
               "password": "s3cret", "tls": {"ca_file": "/etc/ca.pem", "cert_file": "/etc/c.pem",
               "key_file": "/etc/k.pem", "verify_server": false},
               "session_expiry_s": 3600, "shared_group": "g1",
               "topic_filters": ["outpost/+/alarm/+", "site/#"], "keepalive_s": 20,
               "connect_timeout_s": 5, "reconnect_min_ms": 100, "reconnect_max_ms": 1000},
      "rocketmq": {"name_servers": ["10.0.0.1:9876", "10.0.0.2:9876"], "producer_group": "pg",
                   "send_timeout_ms": 2000, "max_attempts": 2, "retry_pause_max_ms": 800},
      "mapping": [{"mqtt_filter": "outpost/+/alarm/+", "rocketmq_topic": "alarms",
                   "tag": "${payload.severity}"},
                  {"mqtt_filter": "site/#", "rocketmq_topic": "site_events", "tag": "site"}],
      "quarantine_topic": "q",
      "limits": {"max_payload_bytes": 1000, "max_json_depth": 8, "max_messages_per_s": 50.5,
                 "max_messages_per_s_per_gateway": 2.5, "quarantine_body_bytes": 100},
      "identity": {"gateway_level": 1, "device_level": -1},
      "dedupe_capacity": 10,
      "status": {"file": "/run/bridge.json", "interval_ms": 500, "log_to_stderr": false}
    })");
    REQUIRE(config.is_ok());
    CHECK(config->rocketmq.name_servers == "10.0.0.1:9876;10.0.0.2:9876");
    CHECK(config->mqtt.endpoint.tls.verify_server == false);
    CHECK(config->mapping[1].rocketmq_topic == "site_events");
    CHECK(config->limits.max_messages_per_s == Approx(50.5));
    CHECK(config->limits.max_messages_per_s_per_gateway == Approx(2.5));
    CHECK(config->identity.device_level == -1);
    CHECK(config->status.log_to_stderr == false);
}

TEST_CASE("configuration errors name the field") {
    CHECK(error_of("{").find("not valid JSON") != std::string::npos);
    CHECK(error_of("[]").find("JSON object") != std::string::npos);
    CHECK(error_of(edited(R"("client_id": "bridge-1")", R"("client_id": "")"))
              .find("mqtt.client_id must not be empty") != std::string::npos);
    CHECK(error_of(edited(R"("client_id": "bridge-1")", R"("client_id": "a/b")"))
              .find("mqtt.client_id must match") != std::string::npos);
    CHECK(error_of(edited(R"("uri": "tcp://127.0.0.1:1883")", R"("uri": "http://x")"))
              .find("mqtt.uri must start with tcp:// or ssl://") != std::string::npos);
    CHECK(error_of(edited(R"("client_id")", R"("keepalive_s": "30", "client_id")"))
              .find("mqtt.keepalive_s must be an integer from 5 to 65535") != std::string::npos);
    CHECK(error_of(edited(R"("client_id")", R"("kepalive_s": 30, "client_id")"))
              .find("mqtt.kepalive_s is not a known field") != std::string::npos);
    CHECK(error_of(edited(R"("127.0.0.1:9876")", R"("broker.example:9876")"))
              .find("rocketmq.name_servers holds \"broker.example:9876\"") != std::string::npos);
    CHECK(error_of(edited(R"("rocketmq_topic": "outpost_alarms")", R"("rocketmq_topic": "a/b")"))
              .find("mapping[0].rocketmq_topic is invalid") != std::string::npos);
    CHECK(error_of(edited(R"("mqtt_filter": "outpost/+/alarm/+")", R"("mqtt_filter": "a/#/b")"))
              .find("mapping[0].mqtt_filter is not a valid MQTT topic filter") !=
          std::string::npos);
    CHECK(error_of(edited(R"("rocketmq_topic": "outpost_alarms")",
                          R"("rocketmq_topic": "t", "tag": "${payload.")"))
              .find("mapping[0].tag is invalid") != std::string::npos);
    CHECK(
        error_of(edited(R"("quarantine_topic": "outpost_quarantine")", R"("quarantine_topic": 5)"))
            .find("quarantine_topic must be a string") != std::string::npos);
    CHECK(error_of(edited(R"("quarantine_topic")",
                          R"("limits": {"max_json_depth": 0}, "quarantine_topic")"))
              .find("limits.max_json_depth must be an integer from 1 to 1000") !=
          std::string::npos);
    CHECK(error_of(edited(R"("quarantine_topic")",
                          R"("limits": {"max_messages_per_s_per_gateway": -1},
                             "quarantine_topic")"))
              .find("limits.max_messages_per_s_per_gateway must be a number >= 0") !=
          std::string::npos);
    // A paced message comes back only as the republish of a gateway waiting
    // for its receipt.
    CHECK(error_of(edited(R"("quarantine_topic")",
                          R"("limits": {"max_messages_per_s_per_gateway": 10},
                             "receipts": {"enabled": false}, "quarantine_topic")"))
              .find("max_messages_per_s_per_gateway needs receipts.enabled") != std::string::npos);
    CHECK(error_of(edited(R"("client_id")", R"("topic_filters": ["$share/g/x"], "client_id")"))
              .find("mqtt.topic_filters holds \"$share/g/x\"") != std::string::npos);
}

TEST_CASE("missing required fields are all reported at once") {
    const std::string message = error_of(R"({"mqtt": {}, "rocketmq": {}})");
    CHECK(message.find("mqtt.uri is required") != std::string::npos);
    CHECK(message.find("mqtt.client_id is required") != std::string::npos);
    CHECK(message.find("rocketmq.name_servers is required") != std::string::npos);
    CHECK(message.find("mapping is required") != std::string::npos);
    CHECK(message.find("quarantine_topic is required") != std::string::npos);
    CHECK(message.find("5 problems") != std::string::npos);
}

TEST_CASE("a configuration file that cannot be read is kNotFound and names the path") {
    auto config = load_bridge_config("/nonexistent/bridge.json");
    REQUIRE_FALSE(config.is_ok());
    CHECK(config.status().code() == StatusCode::kNotFound);
    CHECK(config.status().message().find("/nonexistent/bridge.json") != std::string::npos);
}

// Read the lax way, the last of two "quarantine_topic" members won without a
// word: the file said two things and the bridge chose one.
TEST_CASE("a configuration that repeats a key is refused, naming the key") {
    const std::string twice =
        edited(R"("quarantine_topic": "outpost_quarantine")",
               R"("quarantine_topic": "outpost_quarantine", "quarantine_topic": "other")");
    CHECK(error_of(twice).find("repeats key \"quarantine_topic\"") != std::string::npos);
    const std::string nested =
        edited(R"("client_id": "bridge-1")", R"("client_id": "bridge-1", "client_id": "bridge-2")");
    CHECK(error_of(nested).find("repeats key \"client_id\"") != std::string::npos);
}

TEST_CASE("sessions and requests in flight are bounded, and session ids must fit") {
    auto defaults = parse_bridge_config(kMinimal);
    REQUIRE(defaults.is_ok());
    CHECK(defaults->mqtt.sessions == 1);
    CHECK(defaults->rocketmq.max_in_flight == 32);
    auto several = parse_bridge_config(
        edited(R"("client_id": "bridge-1")", R"("client_id": "bridge-1", "sessions": 8)"));
    REQUIRE(several.is_ok());
    CHECK(several->mqtt.sessions == 8);
    CHECK(session_client_id("bridge-1", 0) == "bridge-1");
    CHECK(session_client_id("bridge-1", 7) == "bridge-1-7");
    CHECK(
        error_of(edited(R"("client_id": "bridge-1")", R"("client_id": "bridge-1", "sessions": 0)"))
            .find("mqtt.sessions") != std::string::npos);
    CHECK(
        error_of(edited(R"("client_id": "bridge-1")", R"("client_id": "bridge-1", "sessions": 65)"))
            .find("mqtt.sessions") != std::string::npos);
    const std::string long_id(63, 'b');  // valid alone; with "-9" it is 65
    const std::string message = error_of(
        edited(R"("client_id": "bridge-1")",
               R"("client_id": ")" + long_id + R"(", "sessions": 10, "retired_sessions": 0)"));
    CHECK(message.find("mqtt.sessions") != std::string::npos);
    CHECK(message.find(long_id + "-9") != std::string::npos);
    CHECK(error_of(edited(R"("name_servers": "127.0.0.1:9876")",
                          R"("name_servers": "127.0.0.1:9876", "max_in_flight": 0)"))
              .find("rocketmq.max_in_flight") != std::string::npos);
}

TEST_CASE("retired sessions are the ids right after the live ones, bounded, and must fit") {
    auto defaults = parse_bridge_config(kMinimal);
    REQUIRE(defaults.is_ok());
    CHECK(defaults->mqtt.retired_sessions == 8);
    auto lowered = parse_bridge_config(
        edited(R"("client_id": "bridge-1")",
               R"("client_id": "bridge-1", "sessions": 2, "retired_sessions": 2)"));
    REQUIRE(lowered.is_ok());
    CHECK(retired_client_ids(lowered->mqtt) ==
          std::vector<std::string>{"bridge-1-2", "bridge-1-3"});
    auto none = parse_bridge_config(
        edited(R"("client_id": "bridge-1")", R"("client_id": "bridge-1", "retired_sessions": 0)"));
    REQUIRE(none.is_ok());
    CHECK(retired_client_ids(none->mqtt).empty());
    CHECK(error_of(edited(R"("client_id": "bridge-1")",
                          R"("client_id": "bridge-1", "retired_sessions": 65)"))
              .find("mqtt.retired_sessions") != std::string::npos);
    const std::string long_id(62, 'b');  // "-9" fits, "-10" does not
    const std::string message = error_of(
        edited(R"("client_id": "bridge-1")",
               R"("client_id": ")" + long_id + R"(", "sessions": 2, "retired_sessions": 9)"));
    CHECK(message.find(long_id + "-10") != std::string::npos);
}

TEST_CASE("the access key and secret file parse together, and a secret in the JSON is refused") {
    auto config = parse_bridge_config(
        config_with(R"(, "access_key": "bridge", "secret_file": "/etc/outpost/rmq.secret")"));
    REQUIRE(config.is_ok());
    CHECK(config->rocketmq.access_key == "bridge");
    CHECK(config->rocketmq.secret_file == "/etc/outpost/rmq.secret");
    CHECK(error_of(config_with(R"(, "access_key": "bridge")"))
              .find("rocketmq.access_key needs rocketmq.access_key and rocketmq.secret_file") !=
          std::string::npos);
    CHECK(error_of(config_with(R"(, "access_key": "b", "secret_file": "/f", "secret_key": "x")"))
              .find("rocketmq.secret_key is not accepted here") != std::string::npos);
}

TEST_CASE("TLS settings parse, and TLS files without tls.enabled are an error") {
    auto config = parse_bridge_config(
        config_with(R"(, "tls": {"enabled": true, "ca_file": "/etc/outpost/rmq-ca.pem"})"));
    REQUIRE(config.is_ok());
    CHECK(config->rocketmq.tls.enabled);
    CHECK_FALSE(config->rocketmq.tls.insecure_skip_verify);
    CHECK(error_of(config_with(R"(, "tls": {"ca_file": "/ca.pem"})"))
              .find("rocketmq.tls is set but rocketmq.tls.enabled is false") != std::string::npos);
    CHECK(error_of(config_with(R"(, "tls": {"enabled": true, "cert_file": "/c.pem"})"))
              .find("rocketmq.tls.cert_file and rocketmq.tls.key_file must be given together") !=
          std::string::npos);
}

TEST_CASE("a tls object next to a tcp:// MQTT URI is an error, not ignored") {
    const std::string message =
        error_of(edited(R"("client_id": "bridge-1")",
                        R"("client_id": "bridge-1", "tls": {"ca_file": "/etc/ca.pem"})"));
    CHECK(message.find("mqtt.tls is set but mqtt.uri is tcp://127.0.0.1:1883") !=
          std::string::npos);
}

TEST_CASE("an MQTT password over tcp:// is refused for a remote broker unless allowed") {
    const std::string remote = edited(
        R"("uri": "tcp://127.0.0.1:1883", "client_id": "bridge-1")",
        R"("uri": "tcp://mqtt.example.net:1883", "client_id": "bridge-1", "username": "b",)"
        R"( "password": "s3cret")");
    CHECK(error_of(remote).find("mqtt.password would travel unencrypted to mqtt.example.net") !=
          std::string::npos);
    auto allowed = parse_bridge_config(
        inserted_before(remote, R"("password")", R"("allow_plaintext_credentials": true, )"));
    REQUIRE(allowed.is_ok());
    const std::vector<std::string> warnings =
        outpost::leg_security_warnings(mqtt_leg_security(allowed->mqtt));
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("mqtt.allow_plaintext_credentials is true") != std::string::npos);
    // Loopback never leaves the machine.
    CHECK(parse_bridge_config(edited(R"("client_id": "bridge-1")",
                                     R"("client_id": "bridge-1", "username": "b",)"
                                     R"( "password": "s3cret")"))
              .is_ok());
}

TEST_CASE("signed RocketMQ requests without TLS are refused for remote name servers unless allowed") {
    const std::string remote = edited(
        R"("127.0.0.1:9876")",
        R"("127.0.0.1:9876;10.0.0.7:9876", "access_key": "b", "secret_file": "/etc/s")");
    CHECK(error_of(remote).find("rocketmq.access_key would travel unencrypted to 10.0.0.7") !=
          std::string::npos);
    auto allowed = parse_bridge_config(
        inserted_before(remote, R"("secret_file")", R"("allow_plaintext_credentials": true, )"));
    REQUIRE(allowed.is_ok());
    CHECK(outpost::leg_security_warnings(rocketmq_leg_security(allowed->rocketmq)).size() == 1);
    CHECK(parse_bridge_config(
              inserted_before(remote, R"("secret_file")", R"("tls": {"enabled": true}, )"))
              .is_ok());
}

TEST_CASE("an unverified server certificate on either leg is warned about and shown") {
    auto config = parse_bridge_config(edited(
        R"("uri": "tcp://127.0.0.1:1883", "client_id": "bridge-1")",
        R"("uri": "ssl://127.0.0.1:8883", "client_id": "bridge-1",)"
        R"( "tls": {"verify_server": false})"));
    REQUIRE(config.is_ok());
    CHECK(unverified_tls_legs(*config) == std::vector<std::string>{"mqtt"});
    const std::vector<std::string> warnings =
        outpost::leg_security_warnings(mqtt_leg_security(config->mqtt));
    REQUIRE(warnings.size() == 1);
    CHECK(warnings[0].find("mqtt.tls does not verify the server's certificate") !=
          std::string::npos);
    auto rocketmq = parse_bridge_config(
        config_with(R"(, "tls": {"enabled": true, "insecure_skip_verify": true})"));
    REQUIRE(rocketmq.is_ok());
    CHECK(unverified_tls_legs(*rocketmq) == std::vector<std::string>{"rocketmq"});
    CHECK(unverified_tls_legs(*parse_bridge_config(kMinimal)).empty());
}

TEST_CASE("a user property as the publisher's identity is refused: publishers can set it") {
    CHECK(error_of(edited(R"("quarantine_topic": "outpost_quarantine")",
                          R"("quarantine_topic": "outpost_quarantine",)"
                          R"( "identity": {"user_property": "client-cn"})"))
              .find("identity.user_property is not accepted") != std::string::npos);
}

TEST_CASE("the Maximum Packet Size the bridge announces covers what it accepts, and no less") {
    auto defaults = parse_bridge_config(kMinimal);
    REQUIRE(defaults.is_ok());
    CHECK(announced_max_packet_size(defaults->mqtt, defaults->limits.max_payload_bytes) ==
          256 * 1024 + kPacketHeadroom);
    auto set = parse_bridge_config(edited(R"("client_id": "bridge-1")",
                                          R"("client_id": "bridge-1", "max_packet_size": 300000)"));
    REQUIRE(set.is_ok());
    CHECK(announced_max_packet_size(set->mqtt, set->limits.max_payload_bytes) == 300000);
    const std::string message = error_of(edited(
        R"("client_id": "bridge-1")", R"("client_id": "bridge-1", "max_packet_size": 262144)"));
    CHECK(message.find("max_packet_size must exceed limits.max_payload_bytes") !=
          std::string::npos);
}

TEST_CASE("each session process gets its share of the instance's and each gateway's rate") {
    auto parsed = parse_bridge_config(edited(
        R"("client_id": "bridge-1")", R"("client_id": "bridge-1", "sessions": 4)"));
    REQUIRE(parsed.is_ok());
    BridgeConfig config = *parsed;
    config.limits.max_messages_per_s = 400;
    config.limits.max_messages_per_s_per_gateway = 20;
    const BridgeConfig own = session_child_config(config, 2);
    CHECK(own.mqtt.endpoint.client_id == "bridge-1-2");
    CHECK(own.limits.max_messages_per_s == Approx(100));
    // The broker spreads a gateway's messages over the four sessions.
    CHECK(own.limits.max_messages_per_s_per_gateway == Approx(5));
    config.limits.max_messages_per_s_per_gateway = 0;  // unlimited stays unlimited
    CHECK(session_child_config(config, 0).limits.max_messages_per_s_per_gateway == 0);
}

TEST_CASE("batches default to 64 messages, 1 MiB and 5 ms, within the producer's bounds") {
    auto config = parse_bridge_config(kMinimal);
    REQUIRE(config.is_ok());
    CHECK(config->batch.max_messages == 64);
    CHECK(config->batch.max_bytes == 1024u * 1024u);
    CHECK(config->batch.linger_ms == 5);
    CHECK(uses_batched_path(*config));
    const auto with_batch = [](const std::string& batch) {
        return edited(R"("quarantine_topic")", R"("batch": )" + batch + R"(, "quarantine_topic")");
    };
    auto set = parse_bridge_config(
        with_batch(R"({"max_messages": 1, "max_bytes": 65536, "linger_ms": 0})"));
    REQUIRE(set.is_ok());
    CHECK_FALSE(uses_batched_path(*set));
    CHECK(error_of(with_batch(R"({"max_messages": 257})"))
              .find("batch.max_messages must be an integer from 1 to 256") != std::string::npos);
    CHECK(error_of(with_batch(R"({"max_bytes": 4194305})"))
              .find("batch.max_bytes must be an integer from 65536 to 4194304") !=
          std::string::npos);
    CHECK(error_of(with_batch(R"({"linger_ms": -1})"))
              .find("batch.linger_ms must be an integer from 0 to 10000") != std::string::npos);
}

TEST_CASE("an ssl:// broker is batched over TLS checked against the uri's host name") {
    BridgeConfig config;
    config.mqtt.endpoint.uri = "ssl://broker.example:8883";
    CHECK(uses_batched_path(config));
    auto host = subscriber_host(config.mqtt.endpoint.uri);
    REQUIRE(host.is_ok());
    CHECK(host->tls);
    CHECK(host->host == "broker.example");
    CHECK(host->port == "8883");
    CHECK_FALSE(subscriber_host("tcp://broker.example:1883")->tls);
    // A TLS file that cannot be read is a configuration error naming it.
    config.mqtt.endpoint.tls.ca_file = "/nonexistent/outpost-ca.pem";
    auto tls = subscriber_tls(config.mqtt);
    REQUIRE_FALSE(tls.is_ok());
    CHECK(tls.status().code() == StatusCode::kInvalidArgument);
    CHECK(tls.status().message().find("mqtt.tls") != std::string::npos);
    CHECK(tls.status().message().find("/nonexistent/outpost-ca.pem") != std::string::npos);
    // tcp:// needs no context.
    config.mqtt.endpoint.uri = "tcp://127.0.0.1:1883";
    auto plain = subscriber_tls(config.mqtt);
    REQUIRE(plain.is_ok());
    CHECK(*plain == nullptr);
}

TEST_CASE("the batched path dials the uri's host and port, resolved to a numeric address") {
    auto v4 = subscriber_host("tcp://127.0.0.1:1883");
    REQUIRE(v4.is_ok());
    CHECK(v4->host == "127.0.0.1");
    CHECK(v4->port == "1883");
    auto resolved = resolve_subscriber_address(*v4);
    REQUIRE(resolved.is_ok());
    CHECK(*resolved == "127.0.0.1:1883");
    auto v6 = subscriber_host("tcp://[::1]:1884");
    REQUIRE(v6.is_ok());
    CHECK(v6->host == "::1");
    auto resolved_v6 = resolve_subscriber_address(*v6);
    REQUIRE(resolved_v6.is_ok());
    CHECK(*resolved_v6 == "[::1]:1884");
    CHECK(subscriber_host("tcp://broker.example:1883").is_ok());
    CHECK(error_of(edited(R"("tcp://127.0.0.1:1883")", R"("tcp://127.0.0.1:0")"))
              .find("mqtt.uri \"tcp://127.0.0.1:0\" has no valid port") != std::string::npos);
}
