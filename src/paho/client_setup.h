// The one home of paho client set-up: the alarm publisher
// (publish/paho_link.cpp), the telemetry lane (telemetry/mqtt_sender.cpp)
// and the bridge (bridge/mqtt/mqtt_session.cpp) create their clients, connect and
// read CONNACK here, so the settings whose defaults
// silently break a guarantee are fixed once (each fact below was checked
// against paho C 1.3.12 and paho-mqtt-cpp 1.2.0, Debian 12's versions):
//  - MQTT v5 at creation (create_options) and in the connect options, set
//    before clean_start (it picks the field): with the default version,
//    paho C 1.3.12 reconnects as MQTT 3.1, and under 3.1.1 a refused
//    publish looks acknowledged;
//  - no client persistence and no offline buffering: Outpost's queues (the
//    outbox, the telemetry ring, the broker's session) are the queues;
//  - no automatic reconnect: each user paces reconnects with common/backoff.h;
//  - paho-mqtt-cpp 1.2.0 connect_options copies keep pointers into the
//    original's properties: connect() builds the options where they live;
//  - token->get_connect_response() returns a temporary: connect() copies it
//    before reading the CONNACK.
// Every paho exception thrown here is caught here.
#ifndef OUTPOST_PAHO_CLIENT_SETUP_H
#define OUTPOST_PAHO_CLIENT_SETUP_H

#include <mqtt/async_client.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "outpost/status.h"
#include "paho/connect_settings.h"

namespace outpost::paho {

// Paho's own queue of publishes not yet written out, when no caller asks
// for another bound (paho's default).
constexpr int kDefaultClientQueue = 100;

// paho's process-wide settings, applied once: OpenSSL left to initialise
// itself at its first use, and paho's trace ring written for errors only
// (see client_setup.cpp). make_client() calls it; code that creates paho
// clients of its own (the benches' bare paho loops) calls it first, so
// they run under the same settings as Outpost's clients.
void configure_process();

// An MQTT v5 client for settings.endpoint.uri and settings.endpoint.client_id, with no
// persistence and no publishing while disconnected; at most
// `client_queue` publishes wait inside paho (beyond that publish throws
// MQTTASYNC_MAX_BUFFERED_MESSAGES). Does not connect. Errors:
// kInvalidArgument (paho refuses the URI or the client id), with `what`
// ("MQTT client", "telemetry MQTT client") leading the message.
Result<std::unique_ptr<mqtt::async_client>> make_client(const ConnectSettings& settings,
                                                        const std::string& what,
                                                        int client_queue = kDefaultClientQueue);

// What the broker said in CONNACK.
struct Connack {
    int mqtt_version = 0;
    bool session_present = false;
    int receive_maximum = 65535;      // QoS 1 publishes it accepts in flight
    int64_t maximum_packet_size = 0;  // bytes; 0 when not announced
};

// A connect attempt that timed out and that paho may still complete: one per
// client, kept by its owner and passed to every connect() of that client.
// Why it matters (paho C 1.3.12 with paho C++ 1.2.0): MQTTAsync_connect
// stores the new attempt's callbacks and context in the client before it
// finds the last attempt still queued and returns -18 (ignored); paho C++
// then frees that context (a token), and when the queued attempt finishes,
// paho calls into the freed token from its receive thread (a segfault in
// mqtt::token::on_success5: the bridge's RocketMQ outage test, where a
// callback held paho's receive thread past several connect timeouts). So no
// connect() starts while the last timed-out attempt is in progress.
class PendingConnect final {
  public:
    // True while paho may still complete the timed-out attempt.
    bool in_progress() const { return token_ && !token_->is_complete(); }
    // Once it is finished: whether it connected after all (the client is
    // then connected without its owner knowing). Forgets it either way.
    bool finished_connected() {
        const bool connected = token_ && token_->is_complete() && token_->get_return_code() == 0;
        if (token_ && token_->is_complete()) token_.reset();
        return connected;
    }

  private:
    friend Result<Connack> connect(mqtt::async_client&, const ConnectSettings&,
                                   const std::string&, PendingConnect&);
    mqtt::token_ptr token_;
};

// Connects `client` with options filled in place from `settings` and waits
// for CONNACK up to settings.endpoint.connect_timeout + 2 s (paho's own connect
// timeout fires first; a token's wait() has none). Errors, each message led
// by `what` ("connect to tcp://..."):
//   kTimeout      no answer in time: the attempt may still finish inside
//                 paho (`pending` keeps it), so the caller disconnects or
//                 waits for its loss;
//   kUnavailable  refused (the CONNACK's reason), unreachable, TLS failure,
//                 `pending` still in progress, or `client` already
//                 connected (an attempt landed after its timeout: paho would
//                 never answer a second CONNECT; nothing was started).
Result<Connack> connect(mqtt::async_client& client, const ConnectSettings& settings,
                        const std::string& what, PendingConnect& pending);

// Calls `on_end(cause)` on paho's thread when an established connection
// ends: lost ("connection lost: ...") or closed by the broker ("broker sent
// DISCONNECT, reason 0x8E (Session taken over)"). Call before connect():
// paho deadlocks if handlers change while it calls them.
void on_connection_end(mqtt::async_client& client, std::function<void(std::string)> on_end);

// "0x87 (Not authorized)": the code for machines, the name for people.
std::string describe_reason(int reason);

// The exception's text, plus its MQTT v5 reason when it is a refusal.
std::string describe(const mqtt::exception& error);

}  // namespace outpost::paho

#endif  // OUTPOST_PAHO_CLIENT_SETUP_H
