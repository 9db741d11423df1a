// DESIGN NOTE: an MQTT message is acknowledged only after RocketMQ said SEND_OK.
//
// Wire contract: MQTT v5 (set in create_options and in the connect options,
// so a reconnect never falls back to 3.1), QoS 1, fixed client id,
// clean_start=false with a Session Expiry Interval (a persistent session),
// subscription "$share/<group>/<filter>" at QoS 1, no client persistence.
//
// Invariants:
//  1. No PUBACK before SEND_OK. Paho C 1.3.12 runs the message callback
//     synchronously on its receive thread and sends the PUBACK right after the
//     callback returns (MQTTProtocol_handlePublishes); paho C++ 1.2.0 always
//     tells the C layer "handled". Delivery::deliver runs inside the callback,
//     so returning from it IS the acknowledgement, and it returns only with
//     forwarded (SEND_OK), duplicate (forwarded before by this instance),
//     quarantined (SEND_OK on the quarantine topic) or paced (its gateway is
//     over limits.max_messages_per_s_per_gateway: no receipt goes back, so
//     the gateway publishes it again; gateway_budget.h). This holds because the C
//     client's own message queue stays empty (it only fills when a callback
//     returns false, which the C++ layer never does). Never use
//     start_consuming(): it acknowledges on arrival.
//  2. The callback never returns without a verdict. Every exception is caught
//     inside it; after an exception, or a stop requested while RocketMQ fails
//     (Verdict::kStopped), the callback parks for good instead of returning,
//     and the process ends with std::_Exit: the socket closes without a PUBACK
//     and the broker redelivers the message to the next session.
//  3. While RocketMQ fails, the callback holds the message and retries with
//     capped backoff, without a time bound (Delivery). Paho has no negative
//     acknowledgement, and "disconnect without acking" is not available
//     either: a disconnect requested from another thread waits for the very
//     mutex the blocked callback holds, so the PUBACK would go out first.
//     Holding also stops paho's keep-alive (same thread): after 1.5 x
//     keepalive the broker drops the connection. That loses nothing: the held
//     message and those queued behind it stay unacknowledged in the persistent
//     session. When RocketMQ answers, the held message is stored, the callback
//     returns, the PUBACK fails on the dead socket, the connection-lost
//     handler fires, we reconnect with clean_start=false, and the broker
//     redelivers (DUP) everything unacknowledged; the message already stored
//     is recognised by RecentEventIds and acknowledged without a second send.
//  4. The supervisor (run()) never calls into paho while a callback may be
//     blocked: connect/subscribe only before the first connection or after a
//     loss, disconnect only at stop and from a helper thread bounded in time.
//     Connection state comes from paho's handlers, never from is_connected(),
//     which takes the same mutex.
//  5. Redelivery after a crash needs the broker to keep the session:
//     mqtt.session_expiry_s must outlast the longest bridge outage, and the
//     broker's queue limit (mosquitto max_queued_messages) the backlog.
//  6. mosquitto 2.0.11 rotates a shared subscription over its members whether
//     or not they are connected: a crashed member's share waits in its
//     session until it returns with the same client id. Restart it quickly.
//  7. A retired session (retired_session.cpp, mqtt.retired_sessions) ends
//     its session at the broker (reconnect with clean start) only when
//     the broker confirmed its UNSUBSCRIBE (no new message joins its queue),
//     no callback is running and nothing arrived for kRetiredQuiet of time in
//     which paho's receive thread was free (not inside any session's
//     callback: a live session holding a message during a RocketMQ outage
//     blocks delivery to the retired one too). Every message it took went
//     through the same callback (invariants 1 to 3).
//  8. No second CONNECT while paho may still complete the last one. A
//     connect times out when paho's receive thread (one per process) is held
//     in a callback and cannot read the CONNACK; the attempt then stays
//     queued in paho, and a new connect() on that client makes paho call
//     into a freed token when the queued attempt finishes (a segfault:
//     paho::PendingConnect in paho/client_setup.h, which refuses it). So a
//     session waits until the timed-out attempt's token completes (and
//     disconnects if it completed connected) before connecting again, and a
//     retired session does not connect at all while any callback of the
//     process runs (bridge/RocketMQ outage test: the bridge restarted during
//     the outage crashed when RocketMQ returned).
//
// Where: the connection, the callback and the supervisor loop (invariants 1
// to 4 and 8) are PahoSession's (paho_session.cpp), shared by both kinds of
// session; what a live session adds (subscribing, the mqtt_connected
// figures) is below; a retired session's steps (invariant 7) are in
// retired_session.cpp.
#include "bridge/mqtt/mqtt_session.h"

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "bridge/mqtt/batched_session.h"
#include "bridge/mqtt/paho_session.h"
#include "common/service_log.h"

namespace outpost::bridge {
namespace {

class LiveSession final : public PahoSession {
  public:
    LiveSession(const BridgeConfig& config, Delivery& delivery, BridgeStats& stats,
                const StopSignal& stop, std::unique_ptr<mqtt::async_client> client)
        : PahoSession(config, delivery, stop, std::move(client)), stats_(stats) {}

  private:
    // "Connected" (the log line and the status) means the broker keeps
    // every matching message for this session from now on: a resumed
    // session already holds its subscription (and may deliver at once,
    // which can hold up the SUBACK behind a held callback); a new one
    // has it only after the SUBACK. A gateway that publishes before any
    // bridge ever subscribed has its messages acknowledged and dropped
    // by the broker.
    Status on_connected(bool session_present, const std::string& where) override {
        if (session_present) {
            stats_.mqtt_connected(config_.mqtt.endpoint.client_id, true);
            log_info("connected to " + where + " (session resumed, subscribed)");
        }
        Status subscribed = subscribe();
        if (subscribed.is_ok()) {
            if (!session_present) {
                stats_.mqtt_connected(config_.mqtt.endpoint.client_id, true);
                log_info("connected to " + where + " (new session), subscribed");
            }
            return subscribed;
        }
        if (session_present) {
            log_warning(subscribed.to_string() + " (the resumed session keeps its subscription)");
            return Status::ok();
        }
        disconnect_bounded();
        return subscribed;
    }

    void connection_ended() override {
        stats_.mqtt_connected(config_.mqtt.endpoint.client_id, false);
    }

    void disconnected() override { stats_.mqtt_connected(config_.mqtt.endpoint.client_id, false); }

    Status subscribe() {
        const auto timeout = std::chrono::duration_cast<std::chrono::seconds>(
                                 config_.mqtt.endpoint.connect_timeout) +
                             std::chrono::seconds(2);
        const std::vector<std::string> filters = shared_filters(config_.mqtt);
        const std::string what =
            "subscribe to " + filters.front() + (filters.size() > 1 ? " (and others)" : "");
        try {
            mqtt::token_ptr token = client_->subscribe(mqtt::string_collection::create(filters),
                                                       std::vector<int>(filters.size(), 1));
            if (!token->wait_for(timeout)) {
                return Status::error(StatusCode::kTimeout, what + ": no SUBACK in time");
            }
            // By value: get_subscribe_response() returns a temporary.
            const mqtt::subscribe_response response = token->get_subscribe_response();
            for (mqtt::ReasonCode code : response.get_reason_codes()) {
                if (static_cast<int>(code) >= 0x80) {
                    return Status::error(
                        StatusCode::kRejected,
                        what + " refused with reason " + std::to_string(static_cast<int>(code)));
                }
            }
        } catch (const mqtt::exception& error) {
            return Status::error(StatusCode::kUnavailable, what + " failed: " + error.what());
        }
        return Status::ok();
    }

    BridgeStats& stats_;
};

}  // namespace

Backoff session_reconnect_backoff(const MqttConfig& mqtt) {
    return Backoff::jittered(mqtt.endpoint.reconnect_initial, mqtt.endpoint.reconnect_max,
                             seeded_random(0));
}

std::vector<std::string> shared_filters(const MqttConfig& mqtt) {
    std::vector<std::string> filters;
    for (const std::string& filter : mqtt.topic_filters) {
        filters.push_back("$share/" + mqtt.shared_group + "/" + filter);
    }
    return filters;
}

Result<std::unique_ptr<MqttSession>> make_mqtt_session(const BridgeConfig& config,
                                                       Delivery& delivery, BridgeStats& stats,
                                                       const StopSignal& stop) {
    if (uses_batched_path(config)) return make_batched_session(config, delivery, stats, stop);
    return make_session<LiveSession>(config, delivery, stats, stop);
}

}  // namespace outpost::bridge
