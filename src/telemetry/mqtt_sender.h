// The telemetry lane's own MQTT v5 connection, the only telemetry file that
// knows paho. QoS 0, clean start, no persistence, no offline buffering, no
// automatic reconnect (the lane paces reconnects). Every paho exception
// stops here. Publishes from one thread only (the lane's sender thread).
#ifndef OUTPOST_TELEMETRY_MQTT_SENDER_H
#define OUTPOST_TELEMETRY_MQTT_SENDER_H

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "outpost/mqtt_endpoint.h"
#include "outpost/status.h"

namespace outpost::telemetry {

// What became of one QoS 0 publish.
enum class SendOutcome {
    kSent,          // handed to the client on a live connection
    kBusy,          // the client's own queue is full: try the same message again shortly
    kDisconnected,  // no connection: the message was not sent
    kRejected,      // the client refused this message itself (bad topic or size)
};

class MqttSender {
  public:
    virtual ~MqttSender() = default;

    // Connects and waits for CONNACK up to endpoint.connect_timeout.
    // Errors: kUnavailable (refused, unreachable, TLS, timeout).
    virtual Status connect() = 0;

    // QoS 0, not retained. `error` receives the reason unless kSent.
    virtual SendOutcome publish(const std::string& topic, const std::string& payload,
                                std::string* error) = 0;

    // Clean DISCONNECT, waiting up to `timeout`. Safe when not connected.
    virtual void disconnect(std::chrono::milliseconds timeout) = 0;

    virtual bool connected() const = 0;
};

// A sender for `endpoint`, whose client_id the lane has resolved. Clean
// start and no will: telemetry is best effort. `on_lost` is called on
// paho's thread with the cause when an established connection ends.
// Errors: kInvalidArgument for a URI or client id paho refuses.
Result<std::unique_ptr<MqttSender>> make_mqtt_sender(
    const MqttEndpoint& endpoint, std::function<void(const std::string& cause)> on_lost);

}  // namespace outpost::telemetry

#endif  // OUTPOST_TELEMETRY_MQTT_SENDER_H
