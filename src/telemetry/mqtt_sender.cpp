// MqttSender over paho-mqtt-cpp's async_client (FIELD-NOTES.md "Paho
// (gateway side)"): MQTT v5 fixed at creation and in the connect options so
// a reconnect never downgrades; paho's command queue kept small, because the
// ring is the buffer and what sits inside paho is lost with the connection.
#include "telemetry/mqtt_sender.h"

#include <algorithm>

extern "C" {
#include <MQTTAsync.h>
}
#include <mqtt/async_client.h>

namespace outpost::telemetry {
namespace {

// Publishes queued inside paho at most; beyond that publish() says kBusy.
constexpr int kClientQueue = 64;

mqtt::ssl_options tls_options(const PublisherTlsOptions& tls) {
    mqtt::ssl_options ssl;
    if (!tls.ca_file.empty()) ssl.set_trust_store(tls.ca_file);
    if (!tls.cert_file.empty()) ssl.set_key_store(tls.cert_file);
    if (!tls.key_file.empty()) ssl.set_private_key(tls.key_file);
    if (!tls.key_password.empty()) ssl.set_private_key_password(tls.key_password);
    ssl.set_enable_server_cert_auth(tls.verify_server);
    ssl.set_verify(tls.verify_server);
    return ssl;
}

class PahoSender final : public MqttSender {
  public:
    PahoSender(const TelemetryOptions& options, std::unique_ptr<mqtt::async_client> client,
               std::function<void(const std::string&)> on_lost)
        : options_(options), client_(std::move(client)) {
        // Before connect(): paho deadlocks if handlers change while it calls them.
        client_->set_connection_lost_handler(
            [on_lost](const std::string& cause) { on_lost("connection lost: " + cause); });
        client_->set_disconnected_handler(
            [on_lost](const mqtt::properties&, mqtt::ReasonCode reason) {
                on_lost("broker sent DISCONNECT, reason " + std::to_string(reason));
            });
    }

    ~PahoSender() override {
        disconnect(std::chrono::milliseconds(0));
        client_->disable_callbacks();
    }

    Status connect() override {
        mqtt::connect_options connect;
        connect.set_mqtt_version(MQTTVERSION_5);  // before clean start: it picks the field
        connect.set_clean_start(true);
        connect.set_automatic_reconnect(false);
        connect.set_keep_alive_interval(options_.keepalive);
        connect.set_connect_timeout(std::max<int64_t>(
            1, std::chrono::duration_cast<std::chrono::seconds>(options_.connect_timeout).count()));
        if (!options_.username.empty() || !options_.password.empty()) {
            connect.set_user_name(options_.username);
            connect.set_password(options_.password);
        }
        if (options_.broker_uri.rfind("ssl://", 0) == 0) connect.set_ssl(tls_options(options_.tls));
        const std::string where = "telemetry connect to " + options_.broker_uri;
        try {
            mqtt::token_ptr token = client_->connect(connect);
            if (!token->wait_for(options_.connect_timeout + std::chrono::seconds(2))) {
                disconnect(std::chrono::milliseconds(0));
                return Status::error(StatusCode::kUnavailable, where + " timed out");
            }
            token->get_connect_response();  // throws if the CONNACK refused us
            return Status::ok();
        } catch (const std::exception& error) {
            return Status::error(StatusCode::kUnavailable, where + ": " + error.what());
        }
    }

    SendOutcome publish(const std::string& topic, const std::string& payload,
                        std::string* error) override {
        try {
            client_->publish(topic, payload.data(), payload.size(), 0, false);
            return SendOutcome::kSent;
        } catch (const mqtt::exception& failure) {
            *error = "publishing to " + topic + ": " + failure.what();
            switch (failure.get_return_code()) {
                case MQTTASYNC_MAX_BUFFERED_MESSAGES:
                    return SendOutcome::kBusy;
                case MQTTASYNC_BAD_UTF8_STRING:
                case MQTTASYNC_TOPICNAME_TRUNCATED:
                case MQTTASYNC_BAD_STRUCTURE:
                    return SendOutcome::kRejected;
                default:
                    return SendOutcome::kDisconnected;
            }
        } catch (const std::exception& failure) {
            *error = "publishing to " + topic + ": " + failure.what();
            return SendOutcome::kDisconnected;
        }
    }

    void disconnect(std::chrono::milliseconds timeout) override {
        try {
            if (!client_->is_connected()) return;
            client_->disconnect(timeout)->wait_for(timeout + std::chrono::milliseconds(500));
        } catch (const std::exception&) {
            // Best effort: the connection is gone either way.
        }
    }

    bool connected() const override { return client_->is_connected(); }

  private:
    const TelemetryOptions options_;
    std::unique_ptr<mqtt::async_client> client_;
};

}  // namespace

Result<std::unique_ptr<MqttSender>> make_mqtt_sender(
    const TelemetryOptions& options, const std::string& client_id,
    std::function<void(const std::string& cause)> on_lost) {
    try {
        mqtt::create_options create(MQTTVERSION_5);
        create.set_send_while_disconnected(false);
        create.set_max_buffered_messages(kClientQueue);
        auto client = std::make_unique<mqtt::async_client>(
            options.broker_uri, client_id, create,
            static_cast<mqtt::iclient_persistence*>(nullptr));  // telemetry is best effort
        return std::unique_ptr<MqttSender>(
            std::make_unique<PahoSender>(options, std::move(client), std::move(on_lost)));
    } catch (const std::exception& error) {
        return Status::error(
            StatusCode::kInvalidArgument,
            "telemetry MQTT client for " + options.broker_uri + ": " + error.what());
    }
}

}  // namespace outpost::telemetry
