// outpostd's telemetry lane reaches the broker exactly as its alarm
// publisher does (one "broker" object, one MqttEndpoint), under a client id
// of its own.
#include "daemon/telemetry_options.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "daemon/config.h"

using outpost::daemon::parse_daemon_config;

namespace {

const std::string kBroker = R"("broker": {"uri": "ssl://broker.example.net:8883",
    "username": "gw-1", "password": "secret", "keepalive_s": 45,
    "connect_timeout_ms": 2500,
    "tls": {"ca_file": "/etc/outpost/ca.pem", "cert_file": "/etc/outpost/gw.pem",
            "key_file": "/etc/outpost/gw.key", "key_password": "k"}},
  "publisher": {"reconnect_initial_ms": 300, "reconnect_max_ms": 9000})";

std::string telemetry_config_text(const std::string& telemetry) {
    return R"({"gateway_id": "gw-1", "database": {"path": "/tmp/unused.db"}, )" + kBroker +
           R"(, "telemetry": {)" + telemetry + "}}";
}

}  // namespace

TEST_CASE("the telemetry lane connects with the publisher's broker settings and its own id") {
    auto config = parse_daemon_config(telemetry_config_text(R"("client_id": "gw-1-tele")"));
    REQUIRE(config.is_ok());
    const outpost::MqttEndpoint& publisher = config->publisher.endpoint;
    const outpost::MqttEndpoint lane = outpost::daemon::telemetry_options(*config).endpoint;

    CHECK(publisher.uri == "ssl://broker.example.net:8883");
    CHECK(publisher.keepalive == std::chrono::seconds(45));
    CHECK(publisher.connect_timeout == std::chrono::milliseconds(2500));
    CHECK(publisher.reconnect_initial == std::chrono::milliseconds(300));
    CHECK(publisher.reconnect_max == std::chrono::milliseconds(9000));
    CHECK(publisher.tls.key_password == "k");

    CHECK(lane.client_id == "gw-1-tele");
    CHECK(lane.uri == publisher.uri);
    CHECK(lane.username == publisher.username);
    CHECK(lane.password == publisher.password);
    CHECK(lane.tls.ca_file == publisher.tls.ca_file);
    CHECK(lane.tls.cert_file == publisher.tls.cert_file);
    CHECK(lane.tls.key_file == publisher.tls.key_file);
    CHECK(lane.tls.key_password == publisher.tls.key_password);
    CHECK(lane.tls.verify_server == publisher.tls.verify_server);
    CHECK(lane.keepalive == publisher.keepalive);
    CHECK(lane.connect_timeout == publisher.connect_timeout);
    CHECK(lane.reconnect_initial == publisher.reconnect_initial);
    CHECK(lane.reconnect_max == publisher.reconnect_max);
}

TEST_CASE("without its own client id the lane leaves the id to the lane's default") {
    auto config = parse_daemon_config(telemetry_config_text(""));
    REQUIRE(config.is_ok());
    // Empty: TelemetryLane uses "outpost-<gatewayId>-telemetry", never the
    // publisher's id, which would make the broker drop one of the two.
    CHECK(outpost::daemon::telemetry_options(*config).endpoint.client_id.empty());
}
