// How an Outpost MQTT client connects, as plain data: the public
// MqttEndpoint that every client is configured with (the alarm publisher,
// the telemetry lane, the bridge's sessions and its receipt sender), plus
// what each client decides for itself (session lifetime, packet size, will).
// The one place that turns it into paho's options is client_setup.h; this
// header names no paho type, so the publisher's link interface can carry it.
#ifndef OUTPOST_PAHO_CONNECT_SETTINGS_H
#define OUTPOST_PAHO_CONNECT_SETTINGS_H

#include <cstdint>
#include <optional>
#include <string>

#include "outpost/mqtt_endpoint.h"

namespace outpost::paho {

// A message the broker publishes when the connection dies without a clean
// DISCONNECT.
struct WillSettings {
    std::string topic;
    std::string payload;
    int qos = 1;
    bool retained = true;
};

struct ConnectSettings {
    // Address, client id (as the client resolved it: never empty here),
    // credentials, TLS, keepalive and connect timeout. Its reconnect pacing
    // is the caller's own business (common/backoff.h).
    MqttEndpoint endpoint;
    // 0: clean start, the session ends with the connection (the gateway: the
    // outbox is the queue). Above 0: a persistent session (clean_start =
    // false) that the broker keeps this many seconds after a disconnect (the
    // bridge: unacknowledged messages wait there for it).
    uint32_t session_expiry_s = 0;
    // Above 0: the Maximum Packet Size announced in CONNECT (MQTT v5). The
    // broker then never sends this client a larger packet: it drops such a
    // message for this client instead of making it receive and copy it.
    uint32_t maximum_packet_size = 0;
    std::optional<WillSettings> will;
};

}  // namespace outpost::paho

#endif  // OUTPOST_PAHO_CONNECT_SETTINGS_H
