// A retired session's steps (invariant 7 of mqtt_session.cpp): leave the
// group, drain, end. The connection itself is PahoSession's.
#include "bridge/mqtt/retired_session.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "bridge/mqtt/paho_session.h"
#include "common/service_log.h"

namespace outpost::bridge {
namespace {

class RetiredSession final : public PahoSession {
  public:
    RetiredSession(const BridgeConfig& config, Delivery& delivery, BridgeStats& stats,
                   const StopSignal& stop, std::unique_ptr<mqtt::async_client> client)
        : PahoSession(config, delivery, stop, std::move(client)), stats_(stats) {
        stats_.retired_session(config_.mqtt.endpoint.client_id, RetiredState::kWaiting);
    }

  private:
    // Invariant 8 for a retired session: it waits while any callback of the
    // process runs (paho could not read its CONNACK).
    bool may_connect() override { return !process_callback_time().held(); }

    // Just connected. Whether there is anything to drain is for step() to
    // find out.
    Status on_connected(bool session_present, const std::string& where) override {
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

    // One look while connected: sends the UNSUBSCRIBE, again after a refusal
    // (mochi-mqtt answers "Packet Identifier in use" while its own
    // deliveries use the same id), and ends the session once it is drained.
    // Not waiting for the UNSUBACK keeps this thread out of paho while a
    // callback may hold a message.
    std::optional<SessionEnd> step() override {
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
        if (drained) return end_session();
        if (send_unsubscribe) {
            const std::vector<std::string> filters = shared_filters(config_.mqtt);
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

    void settled() override {
        mark_quiet_start();
        ++messages_;
    }

    void connection_ended() override {
        if (session_present_) {
            stats_.retired_session(config_.mqtt.endpoint.client_id, RetiredState::kWaiting);
        }
    }

    // Restarts the quiet clock. Under mutex_.
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

    // Ends the drained session: DISCONNECT (the session is kept, empty and
    // out of the group), then CONNECT with clean start and Session Expiry 0,
    // which discards it, and DISCONNECT, which ends the new empty one. (A
    // Session Expiry of 0 on the DISCONNECT itself should do in one step, but
    // set through paho C++ 1.2.0's disconnect_options both brokers kept the
    // session; those options start from paho C's version-0 initializer.)
    SessionEnd end_session() {
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

    BridgeStats& stats_;
    // All guarded by mutex_:
    bool session_present_ = false;  // at the last connect
    mqtt::token_ptr unsubscribe_;   // the last one sent
    std::chrono::steady_clock::time_point unsubscribe_sent_;
    bool unsubscribed_ = false;  // an UNSUBACK was success
    // From the last message settled, connect or UNSUBACK.
    QuietClock quiet_;
    std::uint64_t messages_ = 0;  // settled in this process
};

}  // namespace

Result<std::unique_ptr<MqttSession>> make_retired_session(const BridgeConfig& config,
                                                          Delivery& delivery, BridgeStats& stats,
                                                          const StopSignal& stop) {
    return make_session<RetiredSession>(config, delivery, stats, stop);
}

}  // namespace outpost::bridge
