// What a Subscriber (subscriber.h) connects with. Every field has a default
// fit for the bridge: a persistent session the broker keeps while the
// bridge restarts, a window of unacknowledged messages wide enough for a
// batch.
#ifndef OUTPOST_BRIDGE_MQTT_V5_SUBSCRIBER_OPTIONS_H
#define OUTPOST_BRIDGE_MQTT_V5_SUBSCRIBER_OPTIONS_H

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "rocketmq/tls_socket.h"

namespace outpost::bridge::mqtt5 {

struct SubscriberOptions {
    // "127.0.0.1:1883" or "[::1]:1883": numeric, so no DNS lookup can block.
    std::string address;
    // TLS over the connection when set (the files it was built from,
    // verification on unless the context says otherwise); plain TCP when
    // null.
    std::shared_ptr<const rocketmq::TlsContext> tls;
    // The name the broker's certificate must carry (and SNI), when it is not
    // the numeric `address`: the host name of the configured URI.
    std::string server_name;
    // The session's name at the broker. Keep it fixed: a reconnect with the
    // same id and clean_start false gets back what was unacknowledged.
    // Empty: the broker assigns one (then nothing survives a reconnect).
    std::string client_id;
    std::optional<std::string> user_name;
    std::optional<std::string> password;
    // false: resume the broker's session (unacknowledged QoS 1 messages come
    // again with DUP set, queued ones follow). true: start empty.
    bool clean_start = false;
    // How long the broker keeps the session after the connection ends.
    // 0 ends it with the connection: redelivery after a crash needs more.
    uint32_t session_expiry_interval_seconds = 3600;
    // How many QoS 1 messages the broker may send before the first PUBACK:
    // the most messages the application can hold unacknowledged at once
    // (1..65535). The broker's own limit may be lower (mosquitto:
    // max_inflight_messages).
    uint16_t receive_maximum = 32;
    // The largest packet the broker may send (whole packet, bytes); it drops
    // larger messages for this subscriber instead of sending them.
    uint32_t maximum_packet_size = 1024 * 1024;
    // How many topic aliases the broker may set (0: none). Saves the topic
    // name's bytes on every message after the first on a topic. Off by
    // default: aliases live for one connection only, and mochi-mqtt 2
    // redelivers unacknowledged messages after a reconnect with an alias of
    // the previous connection and no topic name, which the subscriber must
    // refuse (Protocol Error), so the session can never drain.
    uint16_t topic_alias_maximum = 0;
    // Seconds between control packets before a PINGREQ goes out; the broker
    // closes the connection after 1.5 times this of silence. The caller must
    // call receive() at least that often. A Server Keep Alive in CONNACK
    // replaces it.
    uint16_t keep_alive_seconds = 30;
    // Bounds the TCP connect and the wait for CONNACK.
    std::chrono::milliseconds connect_timeout{10000};
    // Bounds each write (PUBACK, PINGREQ, SUBSCRIBE, DISCONNECT).
    std::chrono::milliseconds write_timeout{10000};
};

}  // namespace outpost::bridge::mqtt5

#endif  // OUTPOST_BRIDGE_MQTT_V5_SUBSCRIBER_OPTIONS_H
