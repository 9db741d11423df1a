// The plumbing both kinds of session share; the invariants it keeps are
// numbered in the design note at the top of mqtt_session.cpp.
#include "bridge/mqtt/paho_session.h"

#include <exception>
#include <future>
#include <thread>
#include <utility>

#include "common/service_log.h"

namespace outpost::bridge {
namespace {

constexpr std::chrono::milliseconds kPollSlice{100};
constexpr std::chrono::seconds kDisconnectTimeout{5};

}  // namespace

CallbackTime& process_callback_time() {
    static CallbackTime time;
    return time;
}

paho::ConnectSettings session_settings(const BridgeConfig& bridge) {
    const MqttConfig& config = bridge.mqtt;
    paho::ConnectSettings settings;
    settings.endpoint = config.endpoint;
    settings.session_expiry_s = config.session_expiry_s;
    settings.maximum_packet_size =
        announced_max_packet_size(config, bridge.limits.max_payload_bytes);
    return settings;
}

Result<std::unique_ptr<mqtt::async_client>> make_session_client(const BridgeConfig& config) {
    return paho::make_client(session_settings(config), "MQTT client");
}

PahoSession::PahoSession(const BridgeConfig& config, Delivery& delivery, const StopSignal& stop,
                         std::unique_ptr<mqtt::async_client> client)
    : config_(config),
      settings_(session_settings(config)),
      client_(std::move(client)),
      delivery_(delivery),
      stop_(stop),
      reconnect_backoff_(session_reconnect_backoff(config.mqtt)) {
    // Registered before connect(): paho C 1.3.12 can deadlock when a
    // callback is set while its threads already deliver to the client.
    client_->set_message_callback([this](mqtt::const_message_ptr message) { on_message(message); });
    paho::on_connection_end(*client_, [this](std::string cause) { on_connection_lost(cause); });
}

SessionEnd PahoSession::run() {
    int failures = 0;
    bool connected = false;
    while (!stop_.stop_requested()) {
        if (std::optional<SessionEnd> end = callback_end()) return *end;
        if (!connected && !ready_to_connect()) {  // invariant 8
            stop_.wait_for(kPollSlice);
            continue;
        }
        if (!connected) {
            Status status = connect();
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
        if (std::optional<SessionEnd> end = step()) return *end;
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

std::optional<SessionEnd> PahoSession::callback_end() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!parked_) return std::nullopt;
    return fatal_ ? SessionEnd::kFatal : SessionEnd::kHeldUnacknowledged;
}

void PahoSession::on_message(const mqtt::const_message_ptr& message) {
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
        inbound.received_at = std::chrono::steady_clock::now();
        const Verdict verdict = delivery_.deliver(inbound);
        if (verdict != Verdict::kStopped) {
            process_callback_time().leave(std::chrono::steady_clock::now());
            std::lock_guard<std::mutex> lock(mutex_);
            in_callback_ = false;
            settled();
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

void PahoSession::park(bool fatal) {
    std::unique_lock<std::mutex> lock(mutex_);
    parked_ = true;
    fatal_ = fatal;
    changed_.notify_all();
    for (;;) never_.wait(lock);
}

void PahoSession::on_connection_lost(const std::string& cause) {
    log_warning("MQTT " + cause);
    std::lock_guard<std::mutex> lock(mutex_);
    connection_ended();
    lost_ = true;
    changed_.notify_all();
}

bool PahoSession::ready_to_connect() {
    if (pending_connect_.in_progress()) return false;
    if (pending_connect_.finished_connected()) {
        log_warning("MQTT connect as " + config_.mqtt.endpoint.client_id +
                    " completed after its timeout; starting it again");
        if (!disconnect_bounded()) return false;
    }
    return may_connect();
}

Status PahoSession::connect() {
    const std::string where = config_.mqtt.endpoint.uri + " as " + config_.mqtt.endpoint.client_id;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        lost_ = false;  // before connect(): a loss right after it must count
    }
    auto connack = paho::connect(*client_, settings_, "MQTT connect to " + where, pending_connect_);
    if (!connack.is_ok()) {
        return Status::error(StatusCode::kUnavailable, connack.status().message());
    }
    if (connack->mqtt_version != MQTTVERSION_5) {
        return Status::error(StatusCode::kUnavailable,
                             "broker " + config_.mqtt.endpoint.uri + " did not accept MQTT v5");
    }
    return on_connected(connack->session_present, where);
}

bool PahoSession::disconnect_bounded() {
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
    disconnected();
    return true;
}

}  // namespace outpost::bridge
