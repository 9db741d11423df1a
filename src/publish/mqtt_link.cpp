// MqttLink over paho-mqtt-cpp's async_client. See mqtt_link.h for the
// settings that matter and why; every paho exception stops here.
#include "publish/mqtt_link.h"

#include <cstdio>

// paho's C headers only declare C linkage when included through MQTTAsync.h.
extern "C" {
#include <MQTTAsync.h>
#include <MQTTReasonCodes.h>
}
#include <mqtt/async_client.h>

namespace outpost::publish {
namespace {

// "0x87 (Not authorized)": the code for machines, the name for people.
std::string describe_reason(int reason) {
    char code[8];
    std::snprintf(code, sizeof code, "0x%02X", static_cast<unsigned>(reason) & 0xFFu);
    const char* name = MQTTReasonCode_toString(static_cast<MQTTReasonCodes>(reason));
    return std::string(code) + " (" + (name ? name : "unknown") + ")";
}

std::string describe(const mqtt::exception& error) {
    std::string text = error.what();
    if (error.get_reason_code() >= 0x80) {
        text += "; reason " + describe_reason(error.get_reason_code());
    }
    return text;
}

// Client-side refusals that no reconnect will fix.
bool is_message_error(int rc) {
    return rc == MQTTASYNC_BAD_UTF8_STRING || rc == MQTTASYNC_NULL_PARAMETER ||
           rc == MQTTASYNC_TOPICNAME_TRUNCATED || rc == MQTTASYNC_BAD_STRUCTURE ||
           rc == MQTTASYNC_BAD_QOS;
}

Status publish_error(const mqtt::exception& error, const std::string& topic) {
    StatusCode code = is_message_error(error.get_return_code()) ? StatusCode::kRejected
                                                                : StatusCode::kUnavailable;
    return Status::error(code, "publishing to " + topic + ": " + describe(error));
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
            post(token, PublishOutcome::Kind::kRefused, "PUBACK reason " + describe_reason(reason));
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
        event.outcome.at_boot_ms = clock_.boot_ms();
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
        // Before connect(): paho deadlocks if handlers change while it calls them.
        client_->set_connection_lost_handler(
            [this](const std::string& cause) { lost("connection lost: " + cause); });
        client_->set_disconnected_handler([this](const mqtt::properties&, mqtt::ReasonCode reason) {
            lost("broker sent DISCONNECT, reason " + describe_reason(reason));
        });
    }

    ~PahoLink() override {
        disconnect(std::chrono::milliseconds(0))
            .ignore_error("the link is going away: the broker sees the socket close either way");
        client_->disable_callbacks();
    }

    Result<BrokerLimits> connect() override {
        mqtt::connect_options options;
        options.set_mqtt_version(MQTTVERSION_5);  // before clean start: it picks the field
        options.set_clean_start(true);
        options.set_automatic_reconnect(false);
        options.set_keep_alive_interval(settings_.keepalive);
        options.set_connect_timeout(std::max<int64_t>(
            1,
            std::chrono::duration_cast<std::chrono::seconds>(settings_.connect_timeout).count()));
        if (!settings_.username.empty() || !settings_.password.empty()) {
            options.set_user_name(settings_.username);
            options.set_password(settings_.password);
        }
        if (!settings_.will_topic.empty()) {
            options.set_will(
                mqtt::will_options(settings_.will_topic, settings_.will_payload, 1, true));
        }
        if (settings_.broker_uri.rfind("ssl://", 0) == 0) {
            mqtt::ssl_options ssl;
            if (!settings_.tls.ca_file.empty()) ssl.set_trust_store(settings_.tls.ca_file);
            if (!settings_.tls.cert_file.empty()) ssl.set_key_store(settings_.tls.cert_file);
            if (!settings_.tls.key_file.empty()) ssl.set_private_key(settings_.tls.key_file);
            if (!settings_.tls.key_password.empty()) {
                ssl.set_private_key_password(settings_.tls.key_password);
            }
            ssl.set_enable_server_cert_auth(settings_.tls.verify_server);
            ssl.set_verify(settings_.tls.verify_server);
            options.set_ssl(std::move(ssl));
        }
        const std::string where = " to " + settings_.broker_uri;
        try {
            mqtt::token_ptr token = client_->connect(options);
            // wait() has no timeout; paho's own connect timeout fires first.
            if (!token->wait_for(settings_.connect_timeout + std::chrono::seconds(2))) {
                disconnect(std::chrono::milliseconds(0))
                    .ignore_error("abandoning the attempt: the timeout is what the caller hears");
                return Status::error(StatusCode::kUnavailable, "connect" + where + " timed out");
            }
            BrokerLimits limits;
            // By value: get_connect_response() returns a temporary.
            const mqtt::connect_response response = token->get_connect_response();
            const mqtt::properties& properties = response.get_properties();
            if (properties.contains(mqtt::property::RECEIVE_MAXIMUM)) {
                limits.receive_maximum =
                    mqtt::get<uint16_t>(properties, mqtt::property::RECEIVE_MAXIMUM);
            }
            if (properties.contains(mqtt::property::MAXIMUM_PACKET_SIZE)) {
                limits.maximum_packet_size =
                    mqtt::get<uint32_t>(properties, mqtt::property::MAXIMUM_PACKET_SIZE);
            }
            return limits;
        } catch (const mqtt::exception& error) {
            return Status::error(StatusCode::kUnavailable,
                                 "connect" + where + ": " + describe(error));
        } catch (const std::exception& error) {
            return Status::error(StatusCode::kUnavailable, "connect" + where + ": " + error.what());
        }
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
                                     "publishing to " + topic + ": " + describe(error));
            }
            return publish_error(error, topic);
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
            return Status::error(StatusCode::kUnavailable, "disconnect: " + describe(error));
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
};

}  // namespace

Result<std::unique_ptr<MqttLink>> make_mqtt_link(const LinkSettings& settings, Inbox& inbox,
                                                 const Clock& clock) {
    try {
        mqtt::create_options create(MQTTVERSION_5);
        create.set_send_while_disconnected(false);
        auto client = std::make_unique<mqtt::async_client>(
            settings.broker_uri, settings.client_id, create,
            static_cast<mqtt::iclient_persistence*>(nullptr));  // the outbox is the queue
        return std::unique_ptr<MqttLink>(
            std::make_unique<PahoLink>(settings, inbox, clock, std::move(client)));
    } catch (const mqtt::exception& error) {
        return Status::error(StatusCode::kInvalidArgument,
                             "MQTT client for " + settings.broker_uri + ": " + describe(error));
    }
}

}  // namespace outpost::publish
