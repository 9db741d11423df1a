// The only file that knows paho. It turns paho's exceptions, tokens and
// callbacks into Status values and Inbox events, and fixes the settings
// whose defaults silently break the outbox's guarantees (FIELD-NOTES.md
// "Paho (gateway side)"):
//  - MQTT v5 at creation (create_options) and in the connect options, so a
//    refused PUBACK carries its reason code and reconnects never downgrade;
//  - no persistence and no offline buffering: the outbox is the durable
//    queue, and a publish while disconnected fails instead of hiding in RAM;
//  - per-publish action listeners decide acked/refused (never
//    delivery_complete, which also fires on failures);
//  - no automatic reconnect: the publisher paces reconnects itself.
#ifndef OUTPOST_PUBLISH_MQTT_LINK_H
#define OUTPOST_PUBLISH_MQTT_LINK_H

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "outpost/clock.h"
#include "outpost/publisher_options.h"
#include "outpost/status.h"
#include "publish/inbox.h"

namespace outpost::publish {

struct LinkSettings {
    std::string broker_uri;
    std::string client_id;
    std::string username;
    std::string password;
    PublisherTlsOptions tls;
    std::chrono::seconds keepalive{30};
    std::chrono::milliseconds connect_timeout{10000};
    std::string will_topic;  // retained QoS 1 will; empty means none
    std::string will_payload;
};

// What the broker announced in CONNACK.
struct BrokerLimits {
    int receive_maximum = 65535;      // QoS 1 publishes it accepts in flight
    int64_t maximum_packet_size = 0;  // bytes; 0 when not announced
};

// Publishes from one thread only (paho's rule); the results arrive on
// paho's thread and are posted to the Inbox. The Inbox must outlive the link.
class MqttLink {
  public:
    virtual ~MqttLink() = default;

    // Connects (clean start) and waits for CONNACK up to the connect
    // timeout. Errors: kUnavailable (refused, unreachable, TLS failure,
    // timeout), kInvalidArgument (bad URI or TLS files).
    virtual Result<BrokerLimits> connect() = 0;

    // Starts a QoS 1 publish of `payload` to `topic`; its outcome arrives in
    // the Inbox under `tag`. On an error nothing was sent and no outcome will
    // follow: kUnavailable (not connected: a connection problem),
    // kRejected (the client refused this message itself, e.g. bad topic).
    virtual Status publish(const std::string& topic, const std::string& payload, uint64_t tag) = 0;

    // A retained QoS 1 publish that waits for its PUBACK up to `timeout`
    // (the status topic). Errors: kUnavailable, kRejected (reason code),
    // kTimeout.
    virtual Status publish_retained(const std::string& topic, const std::string& payload,
                                    std::chrono::milliseconds timeout) = 0;

    // Clean DISCONNECT (the broker then drops the will), waiting up to
    // `timeout`. Safe to call when not connected.
    virtual Status disconnect(std::chrono::milliseconds timeout) = 0;

    virtual bool connected() const = 0;
};

// Errors: kInvalidArgument for a URI or client id paho refuses.
Result<std::unique_ptr<MqttLink>> make_mqtt_link(const LinkSettings& settings, Inbox& inbox,
                                                 const Clock& clock);

}  // namespace outpost::publish

#endif  // OUTPOST_PUBLISH_MQTT_LINK_H
