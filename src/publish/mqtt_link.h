// What the publisher needs from an MQTT v5 connection, as an internal
// interface: connect (with a will) and learn the broker's limits from
// CONNACK, publish QoS 1 under a tag whose outcome arrives later through the
// Inbox, publish the retained presence, disconnect. The publisher creates
// one link per lease through a LinkFactory; Publisher::start() passes
// make_paho_link (paho_link.cpp, the only publish file that knows paho),
// and unit tests pass a scripted link (tests/unit/publish/scripted_link.h).
//
// What every implementation must do, because the publisher relies on it:
//  L1. An outcome arrives exactly once for every publish() that returned
//      OK, on another thread, posted to the Inbox under its tag: kAcked for
//      a PUBACK with a reason below 0x80, kRefused for one at or above
//      0x80, kLost when the connection went first (no verdict).
//  L2. A lost connection is posted as a kConnectionLost link event (paho
//      may post one loss twice: lost, then the broker's DISCONNECT); the
//      publishes in flight then get kLost outcomes, before or after it.
//  L3. Nothing is posted after the link was destroyed.
//  L4. Nothing is buffered while disconnected: publish() then fails with
//      kUnavailable and no outcome follows.
//  L5. A message on a topic subscribe()d in this connection is posted as a
//      kMessage link event, in the order it arrived (receipts).
#ifndef OUTPOST_PUBLISH_MQTT_LINK_H
#define OUTPOST_PUBLISH_MQTT_LINK_H

#include <chrono>
#include <cstdint>
#include <functional>
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

// Publishes from one thread only (the publisher thread); results arrive on
// another thread and are posted to the Inbox, which must outlive the link.
class MqttLink {
  public:
    virtual ~MqttLink() = default;

    // Connects (clean start) and waits for CONNACK up to the connect
    // timeout. Errors: kUnavailable (refused, unreachable, TLS failure,
    // timeout), kInvalidArgument (bad URI or TLS files).
    virtual Result<BrokerLimits> connect() = 0;

    // Starts a QoS 1 publish of `payload` to `topic`; its outcome arrives in
    // the Inbox under `tag` (L1). On an error nothing was sent and no
    // outcome will follow: kUnavailable (not connected: a connection
    // problem), kRejected (the client refused this message itself, e.g. a
    // bad topic).
    virtual Status publish(const std::string& topic, const std::string& payload, uint64_t tag) = 0;

    // A retained QoS 1 publish that waits for its PUBACK up to `timeout`
    // (the status topic). Errors: kUnavailable, kRejected (reason code),
    // kTimeout.
    virtual Status publish_retained(const std::string& topic, const std::string& payload,
                                    std::chrono::milliseconds timeout) = 0;

    // Subscribes QoS 1 to `topic` on the current connection (clean start:
    // a reconnect must subscribe again) and waits for SUBACK up to
    // `timeout`. Errors: kUnavailable, kRejected (SUBACK reason, e.g. the
    // ACL refused), kTimeout.
    virtual Status subscribe(const std::string& topic, std::chrono::milliseconds timeout) = 0;

    // Clean DISCONNECT (the broker then drops the will), waiting up to
    // `timeout`. Safe to call when not connected.
    virtual Status disconnect(std::chrono::milliseconds timeout) = 0;

    virtual bool connected() const = 0;
};

// Makes the link for one lease; `inbox` and `clock` are borrowed and outlive
// it. Errors: kInvalidArgument for settings the client refuses.
using LinkFactory = std::function<Result<std::unique_ptr<MqttLink>>(
    const LinkSettings& settings, Inbox& inbox, const Clock& clock)>;

// The paho link (paho_link.cpp).
Result<std::unique_ptr<MqttLink>> make_paho_link(const LinkSettings& settings, Inbox& inbox,
                                                 const Clock& clock);

}  // namespace outpost::publish

#endif  // OUTPOST_PUBLISH_MQTT_LINK_H
