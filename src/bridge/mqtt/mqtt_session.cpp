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
//  7. A retired session (SessionRole::kRetired, mqtt.retired_sessions) ends
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
#include "bridge/mqtt/mqtt_session.h"

#include <mqtt/async_client.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <future>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bridge/mqtt/callback_time.h"
#include "common/backoff.h"
#include "common/service_log.h"
#include "paho/client_setup.h"

namespace outpost::bridge {
namespace {

constexpr std::chrono::milliseconds kPollSlice{100};
constexpr std::chrono::seconds kDisconnectTimeout{5};

// Paho's receive thread's time in callbacks, ONE per process because that
// thread is (callback_time.h; invariant 7).
CallbackTime& process_callback_time() {
    static CallbackTime time;
    return time;
}

// The wire contract above as connect settings: a persistent session
// (clean_start=false, Session Expiry Interval) for the fixed client id, and
// the Maximum Packet Size the bridge accepts.
paho::ConnectSettings session_settings(const BridgeConfig& bridge) {
    const MqttConfig& config = bridge.mqtt;
    paho::ConnectSettings settings;
    settings.endpoint = config.endpoint;
    settings.session_expiry_s = config.session_expiry_s;
    settings.maximum_packet_size =
        announced_max_packet_size(config, bridge.limits.max_payload_bytes);
    return settings;
}

class PahoSession final : public MqttSession {
  public:
    PahoSession(const BridgeConfig& config, Delivery& delivery, BridgeStats& stats,
                const StopSignal& stop, SessionRole role,
                std::unique_ptr<mqtt::async_client> client)
        : config_(config),
          retired_(role == SessionRole::kRetired),
          delivery_(delivery),
          stats_(stats),
          stop_(stop),
          settings_(session_settings(config)),
          client_(std::move(client)),
          // Capped doubling, jittered so a fleet of bridges does not
          // reconnect in lockstep.
          reconnect_backoff_(Backoff::jittered(config.mqtt.endpoint.reconnect_initial,
                                               config.mqtt.endpoint.reconnect_max,
                                               seeded_random(0))) {
        // Registered before connect(): paho C 1.3.12 can deadlock when a
        // callback is set while its threads already deliver to the client.
        client_->set_message_callback(
            [this](mqtt::const_message_ptr message) { on_message(message); });
        paho::on_connection_end(*client_, [this](std::string cause) { on_connection_lost(cause); });
        if (retired_)
            stats_.retired_session(config_.mqtt.endpoint.client_id, RetiredState::kWaiting);
    }

    SessionEnd run() override {
        int failures = 0;
        bool connected = false;
        while (!stop_.stop_requested()) {
            if (std::optional<SessionEnd> end = callback_end()) return *end;
            if (!connected && !ready_to_connect()) {  // invariant 8
                stop_.wait_for(kPollSlice);
                continue;
            }
            if (!connected) {
                Status status = connect_and_subscribe();
                if (!status.is_ok()) {
                    ++failures;
                    const std::chrono::milliseconds pause = reconnect_backoff_.delay(failures);
                    log_warning(status.to_string() + "; next attempt in " +
                                std::to_string(pause.count()) + " ms");
                    stop_.wait_for(pause);
                    continue;
                }
                failures = 0;
                connected = true;
            }
            if (retired_) {
                if (std::optional<SessionEnd> end = retire_step()) return *end;
            }
            std::unique_lock<std::mutex> lock(mutex_);
            changed_.wait_for(lock, kPollSlice, [this] { return lost_ || parked_; });
            if (lost_) connected = false;
        }
        // Stop requested: the callback either finishes its message (RocketMQ
        // answers) or parks on it. Give it the time one send may take.
        const auto deadline = std::chrono::steady_clock::now() +
                              std::chrono::milliseconds(config_.rocketmq.send_timeout_ms) *
                                  (config_.rocketmq.max_attempts + 1);
        {
            std::unique_lock<std::mutex> lock(mutex_);
            changed_.wait_until(lock, deadline, [this] { return !in_callback_ || parked_; });
            if (parked_) return fatal_ ? SessionEnd::kFatal : SessionEnd::kHeldUnacknowledged;
            if (in_callback_) return SessionEnd::kHeldUnacknowledged;
        }
        return disconnect_bounded() ? SessionEnd::kClean : SessionEnd::kHeldUnacknowledged;
    }

  private:
    std::optional<SessionEnd> callback_end() {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!parked_) return std::nullopt;
        return fatal_ ? SessionEnd::kFatal : SessionEnd::kHeldUnacknowledged;
    }

    // Paho's receive thread. See invariants 1 to 3.
    void on_message(const mqtt::const_message_ptr& message) {
        bool fatal = true;
        try {
            process_callback_time().enter(std::chrono::steady_clock::now());
            {
                std::lock_guard<std::mutex> lock(mutex_);
                in_callback_ = true;
            }
            InboundMessage inbound;
            inbound.topic = message->get_topic();
            inbound.payload = message->get_payload_str();
            inbound.redelivered = message->is_duplicate();
            const Verdict verdict = delivery_.deliver(inbound);
            if (verdict != Verdict::kStopped) {
                process_callback_time().leave(std::chrono::steady_clock::now());
                std::lock_guard<std::mutex> lock(mutex_);
                in_callback_ = false;
                mark_quiet_start();
                ++messages_;
                changed_.notify_all();
                return;  // paho sends the PUBACK now
            }
            fatal = false;
            log_warning("stopping while RocketMQ fails: message on " + inbound.topic +
                        " stays unacknowledged for redelivery");
        } catch (const std::exception& error) {
            log_error(std::string("message callback failed: ") + error.what());
        } catch (...) {
            log_error("message callback failed with an unknown exception");
        }
        park(fatal);
    }

    // Never returns: returning would acknowledge the message (invariant 2).
    [[noreturn]] void park(bool fatal) {
        std::unique_lock<std::mutex> lock(mutex_);
        parked_ = true;
        fatal_ = fatal;
        changed_.notify_all();
        for (;;) never_.wait(lock);
    }

    void on_connection_lost(const std::string& cause) {
        if (!retired_) stats_.mqtt_connected(config_.mqtt.endpoint.client_id, false);
        log_warning("MQTT " + cause);
        std::lock_guard<std::mutex> lock(mutex_);
        if (retired_ && session_present_) {
            stats_.retired_session(config_.mqtt.endpoint.client_id, RetiredState::kWaiting);
        }
        lost_ = true;
        changed_.notify_all();
    }

    // Invariant 8: no attempt of this client is still queued in paho, and a
    // retired session waits while any callback of the process runs.
    bool ready_to_connect() {
        if (pending_connect_.in_progress()) return false;
        if (pending_connect_.finished_connected()) {
            log_warning("MQTT connect as " + config_.mqtt.endpoint.client_id +
                        " completed after its timeout; starting it again");
            if (!disconnect_bounded()) return false;
        }
        return !(retired_ && process_callback_time().held());
    }

    Status connect_and_subscribe() {
        const std::string where =
            config_.mqtt.endpoint.uri + " as " + config_.mqtt.endpoint.client_id;
        const auto timeout = std::chrono::duration_cast<std::chrono::seconds>(
                                 config_.mqtt.endpoint.connect_timeout) +
                             std::chrono::seconds(2);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            lost_ = false;  // before connect(): a loss right after it must count
        }
        auto connack =
            paho::connect(*client_, settings_, "MQTT connect to " + where, pending_connect_);
        if (!connack.is_ok()) {
            return Status::error(StatusCode::kUnavailable, connack.status().message());
        }
        if (connack->mqtt_version != MQTTVERSION_5) {
            return Status::error(StatusCode::kUnavailable,
                                 "broker " + config_.mqtt.endpoint.uri + " did not accept MQTT v5");
        }
        const bool session_present = connack->session_present;
        if (retired_) return take_out_of_group(session_present, where);
        // "Connected" (the log line and the status) means the broker keeps
        // every matching message for this session from now on: a resumed
        // session already holds its subscription (and may deliver at once,
        // which can hold up the SUBACK behind a held callback); a new one
        // has it only after the SUBACK. A gateway that publishes before any
        // bridge ever subscribed has its messages acknowledged and dropped
        // by the broker.
        if (session_present) {
            stats_.mqtt_connected(config_.mqtt.endpoint.client_id, true);
            log_info("connected to " + where + " (session resumed, subscribed)");
        }
        Status subscribed = subscribe(timeout);
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

    // The group's filters as subscribed: $share/<group>/<filter>.
    std::vector<std::string> shared_filters() const {
        std::vector<std::string> filters;
        for (const std::string& filter : config_.mqtt.topic_filters) {
            filters.push_back("$share/" + config_.mqtt.shared_group + "/" + filter);
        }
        return filters;
    }

    Status subscribe(std::chrono::seconds timeout) {
        const std::vector<std::string> filters = shared_filters();
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

    // A retired session just connected (invariant 7). Whether there is
    // anything to drain is for retire_step() to find out.
    Status take_out_of_group(bool session_present, const std::string& where) {
        std::lock_guard<std::mutex> lock(mutex_);
        session_present_ = session_present;
        unsubscribed_ = false;
        unsubscribe_.reset();
        mark_quiet_start();
        if (session_present) {
            stats_.retired_session(config_.mqtt.endpoint.client_id, RetiredState::kDraining);
            log_info("retired session: connected to " + where +
                     " (session resumed), leaving the group and draining it");
        }
        return Status::ok();
    }

    // Restarts a retired session's quiet clock (invariant 7). Under mutex_.
    void mark_quiet_start() {
        const auto now = std::chrono::steady_clock::now();
        quiet_.restart(now, process_callback_time());
    }

    // Whether `token` completed with every reason code a success.
    static bool succeeded(const mqtt::token& token) {
        if (token.get_return_code() != 0) return false;
        try {
            const mqtt::unsubscribe_response response = token.get_unsubscribe_response();
            for (mqtt::ReasonCode code : response.get_reason_codes()) {
                if (static_cast<int>(code) >= 0x80) return false;
            }
        } catch (const mqtt::exception&) {
            return false;
        }
        return true;
    }

    // One look of a connected retired session (invariant 7): sends the
    // UNSUBSCRIBE, again after a refusal (mochi-mqtt answers "Packet
    // Identifier in use" while its own deliveries use the same id), and ends
    // the session once it is drained. Not waiting for the UNSUBACK keeps
    // this thread out of paho while a callback may hold a message.
    std::optional<SessionEnd> retire_step() {
        const auto now = std::chrono::steady_clock::now();
        bool send_unsubscribe = false;
        bool drained = false;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (!session_present_) {
                drained = true;
            } else if (!unsubscribed_ && (!unsubscribe_ || unsubscribe_->is_complete())) {
                if (unsubscribe_ && succeeded(*unsubscribe_)) {
                    unsubscribed_ = true;
                    mark_quiet_start();  // quiet from the UNSUBACK on
                } else if (now - unsubscribe_sent_ >= kRetiredQuiet / 4) {
                    send_unsubscribe = true;
                    unsubscribe_sent_ = now;
                }
            } else if (unsubscribed_ && !in_callback_ && !lost_) {
                drained = quiet_.quiet_for(kRetiredQuiet, now, process_callback_time());
            }
        }
        if (drained) return end_retired();
        if (send_unsubscribe) {
            const std::vector<std::string> filters = shared_filters();
            try {
                // Not under mutex_: paho may hold its own lock while a
                // callback waits for mutex_.
                mqtt::token_ptr token =
                    client_->unsubscribe(mqtt::string_collection::create(filters));
                std::lock_guard<std::mutex> lock(mutex_);
                unsubscribe_ = token;
            } catch (const mqtt::exception& error) {
                log_warning("unsubscribe as " + config_.mqtt.endpoint.client_id +
                            " failed: " + error.what() + "; trying again");
            }
        }
        return std::nullopt;
    }

    // Ends the drained session: DISCONNECT (the session is kept, empty and
    // out of the group), then CONNECT with clean start and Session Expiry 0,
    // which discards it, and DISCONNECT, which ends the new empty one. (A
    // Session Expiry of 0 on the DISCONNECT itself should do in one step, but
    // set through paho C++ 1.2.0's disconnect_options both brokers kept the
    // session; those options start from paho C's version-0 initializer.)
    SessionEnd end_retired() {
        if (!disconnect_bounded()) return SessionEnd::kHeldUnacknowledged;
        paho::ConnectSettings discard = settings_;
        discard.session_expiry_s = 0;
        auto connack =
            paho::connect(*client_, discard,
                          "MQTT connect to end retired session " + config_.mqtt.endpoint.client_id,
                          pending_connect_);
        if (!connack.is_ok()) {
            // Still drained and out of the group: the next start ends it.
            stats_.retired_session(config_.mqtt.endpoint.client_id, RetiredState::kDrained);
            log_warning(connack.status().message());
            return SessionEnd::kClean;
        }
        if (!disconnect_bounded()) return SessionEnd::kHeldUnacknowledged;
        stats_.retired_session(config_.mqtt.endpoint.client_id, RetiredState::kEnded);
        std::lock_guard<std::mutex> lock(mutex_);
        log_info("retired session " + config_.mqtt.endpoint.client_id + " ended (" +
                 (session_present_ ? std::to_string(messages_) + " messages forwarded from it"
                                   : std::string("it had no session at the broker")) +
                 ")");
        return SessionEnd::kClean;
    }

    // DISCONNECT from a helper thread, waiting at most kDisconnectTimeout
    // (invariant 4). False when it did not finish: the helper stays blocked
    // behind a parked callback and the session must not be destroyed.
    bool disconnect_bounded() {
        auto done = std::make_shared<std::promise<void>>();
        std::future<void> finished = done->get_future();
        mqtt::async_client* client = client_.get();
        std::thread([client, done] {
            try {
                client->disconnect()->wait_for(kDisconnectTimeout);
            } catch (const mqtt::exception&) {
                // Not connected: nothing to close.
            }
            done->set_value();
        }).detach();
        if (finished.wait_for(kDisconnectTimeout + std::chrono::seconds(1)) !=
            std::future_status::ready) {
            return false;
        }
        if (!retired_) stats_.mqtt_connected(config_.mqtt.endpoint.client_id, false);
        return true;
    }

    const BridgeConfig config_;
    const bool retired_;  // SessionRole::kRetired
    Delivery& delivery_;
    BridgeStats& stats_;
    const StopSignal& stop_;
    const paho::ConnectSettings settings_;
    std::unique_ptr<mqtt::async_client> client_;
    Backoff reconnect_backoff_;  // run() thread only
    paho::PendingConnect pending_connect_;  // invariant 8; run() thread only

    std::mutex mutex_;
    std::condition_variable changed_;  // lost_, parked_ or in_callback_ changed
    std::condition_variable never_;    // a parked callback waits here for good
    bool lost_ = false;                // guarded by mutex_
    bool parked_ = false;              // guarded by mutex_
    bool fatal_ = false;               // guarded by mutex_
    bool in_callback_ = false;         // guarded by mutex_
    // Retired sessions only (invariant 7), all guarded by mutex_:
    bool session_present_ = false;  // at the last connect
    mqtt::token_ptr unsubscribe_;   // the last one sent
    std::chrono::steady_clock::time_point unsubscribe_sent_;
    bool unsubscribed_ = false;  // an UNSUBACK was success
    // From the last message settled, connect or UNSUBACK.
    QuietClock quiet_;
    std::uint64_t messages_ = 0;  // settled in this process
};

}  // namespace

Result<std::unique_ptr<MqttSession>> make_mqtt_session(const BridgeConfig& config,
                                                       Delivery& delivery, BridgeStats& stats,
                                                       const StopSignal& stop, SessionRole role) {
    // No client persistence: the broker's session is the queue.
    auto client = paho::make_client(session_settings(config), "MQTT client");
    if (!client.is_ok()) return client.status();
    return std::unique_ptr<MqttSession>(
        new PahoSession(config, delivery, stats, stop, role, std::move(*client)));
}

}  // namespace outpost::bridge
