// MqttLink over paho-mqtt-cpp's async_client. The client and its connect
// options come from paho/client_setup.h (MQTT v5, no persistence, no offline
// buffering, no automatic reconnect); per-publish action listeners decide
// acked/refused/lost (never delivery_complete, which also fires on
// failures). Every paho exception stops here.
#include <algorithm>

#include "paho/client_setup.h"
#include "publish/mqtt_link.h"

// paho's C headers only declare C linkage when included through MQTTAsync.h.
extern "C" {
#include <MQTTAsync.h>
}
#include <mqtt/async_client.h>

namespace outpost::publish {
namespace {

// Client-side refusals that no reconnect will fix.
bool is_message_error(int rc) {
    return rc == MQTTASYNC_BAD_UTF8_STRING || rc == MQTTASYNC_NULL_PARAMETER ||
           rc == MQTTASYNC_TOPICNAME_TRUNCATED || rc == MQTTASYNC_BAD_STRUCTURE ||
           rc == MQTTASYNC_BAD_QOS;
}

Status publish_error(const mqtt::exception& error, const std::string& topic) {
    StatusCode code = is_message_error(error.get_return_code()) ? StatusCode::kRejected
                                                                : StatusCode::kUnavailable;
    return Status::error(code, "publishing to " + topic + ": " + paho::describe(error));
}

// Receives the verdict of every QoS 1 publish on paho's thread. A reason
// code >= 0x80 is the broker's refusal of this message; any other failure
// (the connection dropped, the client gave up on the token) says nothing
// about the message and must not count as an attempt.
class OutcomeListener final : public mqtt::iaction_listener {
  public:
    OutcomeListener(Inbox& inbox, const Clock& clock) : inbox_(inbox), clock_(clock) {}

    void on_success(const mqtt::token& token) override {
        post(token, PublishOutcome::Kind::kAcked, std::string());
    }

    void on_failure(const mqtt::token& token) override {
        const int reason = token.get_reason_code();
        if (reason >= 0x80) {
            post(token, PublishOutcome::Kind::kRefused,
                 "PUBACK reason " + paho::describe_reason(reason));
        } else {
            post(token, PublishOutcome::Kind::kLost,
                 "publish abandoned by the client (rc " + std::to_string(token.get_return_code()) +
                     ")");
        }
    }

  private:
    void post(const mqtt::token& token, PublishOutcome::Kind kind, std::string reason) {
        LinkEvent event;
        event.kind = LinkEvent::Kind::kOutcome;
        event.outcome.tag =
            static_cast<uint64_t>(reinterpret_cast<uintptr_t>(token.get_user_context()));
        event.outcome.kind = kind;
        event.outcome.reason = std::move(reason);
        event.outcome.at_boot_us = clock_.boot_us();
        inbox_.post_link_event(std::move(event));
    }

    Inbox& inbox_;
    const Clock& clock_;
};

class PahoLink final : public MqttLink {
  public:
    PahoLink(const LinkSettings& settings, Inbox& inbox, const Clock& clock,
             std::unique_ptr<mqtt::async_client> client)
        : settings_(settings), inbox_(inbox), listener_(inbox, clock), client_(std::move(client)) {
        paho::on_connection_end(*client_, [this](std::string cause) { lost(std::move(cause)); });
        // Registered before connect() (paho deadlocks if handlers change
        // while it calls them). L5: receipts, in arrival order.
        client_->set_message_callback([this](mqtt::const_message_ptr message) {
            LinkEvent event;
            event.kind = LinkEvent::Kind::kMessage;
            event.topic = message->get_topic();
            event.payload = message->get_payload_str();
            inbox_.post_link_event(std::move(event));
        });
    }

    ~PahoLink() override {
        disconnect(std::chrono::milliseconds(0))
            .ignore_error("the link is going away: the broker sees the socket close either way");
        client_->disable_callbacks();
    }

    Result<BrokerLimits> connect() override {
        auto connack = paho::connect(*client_, settings_, "connect to " + settings_.endpoint.uri,
                                     pending_connect_);
        if (!connack) {
            if (connack.status().code() == StatusCode::kTimeout) {
                // Best effort: abandon an attempt paho may still complete; the
                // caller gets the timeout either way.
                disconnect(std::chrono::milliseconds(0))
                    .ignore_error("abandoning the attempt: the timeout is what the caller hears");
            }
            return Status::error(StatusCode::kUnavailable, connack.status().message());
        }
        BrokerLimits limits;
        limits.receive_maximum = connack->receive_maximum;
        limits.maximum_packet_size = connack->maximum_packet_size;
        return limits;
    }

    Status publish(const std::string& topic, const std::string& payload, uint64_t tag) override {
        try {
            client_->publish(topic, payload.data(), payload.size(), 1, false,
                             reinterpret_cast<void*>(static_cast<uintptr_t>(tag)), listener_);
            return Status::ok();
        } catch (const mqtt::exception& error) {
            return publish_error(error, topic);
        }
    }

    Status publish_retained(const std::string& topic, const std::string& payload,
                            std::chrono::milliseconds timeout) override {
        try {
            mqtt::delivery_token_ptr token =
                client_->publish(topic, payload.data(), payload.size(), 1, true);
            if (!token->wait_for(timeout)) {
                return Status::error(StatusCode::kTimeout, "no PUBACK for " + topic);
            }
            return Status::ok();
        } catch (const mqtt::exception& error) {
            if (error.get_reason_code() >= 0x80) {
                return Status::error(StatusCode::kRejected,
                                     "publishing to " + topic + ": " + paho::describe(error));
            }
            return publish_error(error, topic);
        }
    }

    Status subscribe(const std::string& topic, std::chrono::milliseconds timeout) override {
        try {
            mqtt::token_ptr token = client_->subscribe(topic, 1);
            if (!token->wait_for(timeout)) {
                return Status::error(StatusCode::kTimeout, "no SUBACK for " + topic);
            }
            // By value: get_subscribe_response() returns a temporary.
            const mqtt::subscribe_response response = token->get_subscribe_response();
            for (mqtt::ReasonCode reason : response.get_reason_codes()) {
                if (reason >= 0x80) {
                    return Status::error(StatusCode::kRejected, "subscribing to " + topic + ": " +
                                                                    paho::describe_reason(reason));
                }
            }
            return Status::ok();
        } catch (const mqtt::exception& error) {
            if (error.get_reason_code() >= 0x80) {
                return Status::error(StatusCode::kRejected,
                                     "subscribing to " + topic + ": " + paho::describe(error));
            }
            return Status::error(StatusCode::kUnavailable,
                                 "subscribing to " + topic + ": " + paho::describe(error));
        }
    }

    Status disconnect(std::chrono::milliseconds timeout) override {
        try {
            if (!client_->is_connected()) return Status::ok();
            mqtt::token_ptr token = client_->disconnect(timeout);
            if (!token->wait_for(timeout + std::chrono::milliseconds(500))) {
                return Status::error(StatusCode::kTimeout, "disconnect did not finish");
            }
            return Status::ok();
        } catch (const mqtt::exception& error) {
            return Status::error(StatusCode::kUnavailable, "disconnect: " + paho::describe(error));
        }
    }

    bool connected() const override { return client_->is_connected(); }

  private:
    void lost(std::string cause) {
        LinkEvent event;
        event.kind = LinkEvent::Kind::kConnectionLost;
        event.cause = std::move(cause);
        inbox_.post_link_event(std::move(event));
    }

    const LinkSettings settings_;
    Inbox& inbox_;
    OutcomeListener listener_;  // outlives client_: declared before it
    std::unique_ptr<mqtt::async_client> client_;
    paho::PendingConnect pending_connect_;  // the publisher thread only
};

}  // namespace

Result<std::unique_ptr<MqttLink>> make_paho_link(const LinkSettings& settings, Inbox& inbox,
                                                 const Clock& clock) {
    auto client = paho::make_client(settings, "MQTT client");
    if (!client) return client.status();
    return std::unique_ptr<MqttLink>(
        std::make_unique<PahoLink>(settings, inbox, clock, std::move(*client)));
}

}  // namespace outpost::publish
