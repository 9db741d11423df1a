// How an Outpost MQTT client connects, as plain data: what the alarm
// publisher, the telemetry lane and the bridge each decide. The one place
// that turns it into paho's options is client_setup.h; this header names no
// paho type, so the publisher's link interface can carry it.
#ifndef OUTPOST_PAHO_CONNECT_SETTINGS_H
#define OUTPOST_PAHO_CONNECT_SETTINGS_H

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "outpost/publisher_options.h"

namespace outpost::paho {

// TLS for an "ssl://" URI: CA, client certificate and key (PEM files, empty
// means unused), key password, server verification. The public
// PublisherTlsOptions already says it; every client (the bridge's too) uses it.
using TlsSettings = PublisherTlsOptions;

// A message the broker publishes when the connection dies without a clean
// DISCONNECT.
struct WillSettings {
    std::string topic;
    std::string payload;
    int qos = 1;
    bool retained = true;
};

struct ConnectSettings {
    std::string uri;  // "tcp://host:port" or "ssl://host:port" (then `tls` applies)
    std::string client_id;
    std::string username;  // both empty: anonymous
    std::string password;
    TlsSettings tls;
    std::chrono::seconds keepalive{30};
    // How long one connect may take. Paho counts whole seconds: rounded
    // down, at least 1 s.
    std::chrono::milliseconds connect_timeout{10000};
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
