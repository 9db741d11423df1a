// MqttSender over paho-mqtt-cpp's async_client. The client and its connect
// options come from paho/client_setup.h (MQTT v5 fixed at creation and in the
// connect options so a reconnect never downgrades, clean start, no
// persistence); paho's command queue is kept small, because the ring is the
// buffer and what sits inside paho is lost with the connection.
#include "telemetry/mqtt_sender.h"

extern "C" {
#include <MQTTAsync.h>
}
#include <mqtt/async_client.h>

#include "paho/client_setup.h"

namespace outpost::telemetry {
namespace {

// Publishes queued inside paho at most; beyond that publish() says kBusy.
constexpr int kClientQueue = 64;

class PahoSender final : public MqttSender {
  public:
    PahoSender(paho::ConnectSettings settings, std::unique_ptr<mqtt::async_client> client,
               std::function<void(const std::string&)> on_lost)
        : settings_(std::move(settings)), client_(std::move(client)) {
        paho::on_connection_end(*client_, std::move(on_lost));
    }

    ~PahoSender() override {
        disconnect(std::chrono::milliseconds(0));
        client_->disable_callbacks();
    }

    Status connect() override {
        auto connack =
            paho::connect(*client_, settings_, "telemetry connect to " + settings_.endpoint.uri,
                          pending_connect_);
        if (connack) return Status::ok();
        if (connack.status().code() == StatusCode::kTimeout) {
            disconnect(std::chrono::milliseconds(0));
        }
        return Status::error(StatusCode::kUnavailable, connack.status().message());
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
    const paho::ConnectSettings settings_;
    std::unique_ptr<mqtt::async_client> client_;
    paho::PendingConnect pending_connect_;  // the lane's sending thread only
};

}  // namespace

Result<std::unique_ptr<MqttSender>> make_mqtt_sender(
    const MqttEndpoint& endpoint, std::function<void(const std::string& cause)> on_lost) {
    paho::ConnectSettings settings;  // clean start, no will: telemetry is best effort
    settings.endpoint = endpoint;
    auto client = paho::make_client(settings, "telemetry MQTT client", kClientQueue);
    if (!client) return client.status();
    return std::unique_ptr<MqttSender>(
        std::make_unique<PahoSender>(std::move(settings), std::move(*client), std::move(on_lost)));
}

}  // namespace outpost::telemetry
