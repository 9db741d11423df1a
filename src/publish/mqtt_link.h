// The publisher's MQTT connection. mqtt_link.cpp is the only publish file
// that knows paho: it turns paho's exceptions, tokens and callbacks into
// Status values and Inbox events; the client and its connect options come
// from paho/client_setup.h (MQTT v5, no persistence, no offline buffering,
// no automatic reconnect).
#ifndef OUTPOST_PUBLISH_MQTT_LINK_H
#define OUTPOST_PUBLISH_MQTT_LINK_H

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "outpost/clock.h"
#include "outpost/status.h"
#include "paho/connect_settings.h"
#include "publish/inbox.h"

namespace outpost::publish {

// Broker, credentials, TLS, keep-alive, connect timeout and the retained
// QoS 1 will (the publisher always sets one). Clean start: the outbox is
// the queue.
using LinkSettings = paho::ConnectSettings;

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
