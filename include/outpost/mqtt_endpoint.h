// Where an Outpost MQTT client connects and how: the broker's address, the
// client's identity and credentials, TLS, and the pacing of connection
// attempts. The alarm publisher (PublisherOptions::endpoint) and the
// telemetry lane (TelemetryOptions::endpoint) take the same struct, so a
// program that runs both fills it once and changes only the client id.
//
// Every field has a default that suits a gateway talking to a broker over a
// WAN link. The fields are checked when the client starts (Publisher::start,
// TelemetryLane::start), not here.
#ifndef OUTPOST_MQTT_ENDPOINT_H
#define OUTPOST_MQTT_ENDPOINT_H

#include <chrono>
#include <string>

namespace outpost {

// TLS for an "ssl://" broker URI; ignored for "tcp://". Paths are PEM files
// read when the client connects; empty means unused.
struct MqttTlsOptions {
    std::string ca_file;        // trust anchor for the broker's certificate
    std::string cert_file;      // client certificate (mutual TLS)
    std::string key_file;       // client private key
    std::string key_password;   // if key_file is encrypted
    bool verify_server = true;  // check the broker's certificate and host name
};

struct MqttEndpoint {
    // "tcp://host:port" or "ssl://host:port" (then `tls` applies).
    std::string uri = "tcp://127.0.0.1:1883";
    // MQTT client id. Empty means the client's own default
    // ("outpost-<gatewayId>" for the publisher,
    // "outpost-<gatewayId>-telemetry" for the telemetry lane). Two clients
    // connected with one id make the broker disconnect one of them.
    std::string client_id;
    // Credentials; both empty means anonymous. They travel in the clear
    // over "tcp://".
    std::string username;
    std::string password;
    MqttTlsOptions tls;

    // MQTT keepalive: the broker drops the connection after 1.5 times this
    // without traffic, and a dead link is noticed after about as long.
    std::chrono::seconds keepalive{30};
    // How long one connection attempt may take before it counts as failed.
    // Counted in whole seconds: rounded down, at least 1 s.
    std::chrono::milliseconds connect_timeout{10000};
    // Reconnect pacing after a failed or lost connection: capped exponential
    // with jitter, reset by a successful connect.
    std::chrono::milliseconds reconnect_initial{500};
    std::chrono::milliseconds reconnect_max{60000};
};

}  // namespace outpost

#endif  // OUTPOST_MQTT_ENDPOINT_H
