#include "bridge/mqtt/receipt_sender.h"

#include <mqtt/async_client.h>

#include <atomic>
#include <chrono>
#include <string>

#include "common/backoff.h"
#include "common/random_source.h"
#include "common/service_log.h"
#include "paho/client_setup.h"

namespace outpost::bridge {
namespace {

// Receipt publishes waiting inside paho at once; beyond it send() fails and
// the batch is dropped (best effort) instead of queueing without bound.
constexpr int kClientQueue = 1000;

paho::ConnectSettings receipt_settings(const MqttConfig& config) {
    paho::ConnectSettings settings;
    settings.endpoint = config.endpoint;
    settings.endpoint.client_id += "-receipts";
    settings.session_expiry_s = 0;  // clean start: a receipt is never worth keeping
    return settings;
}

class AckCounter final : public mqtt::iaction_listener {
  public:
    void on_success(const mqtt::token&) override { acked_++; }
    void on_failure(const mqtt::token&) override { failed_++; }
    ReceiptAcks read() const { return ReceiptAcks{acked_.load(), failed_.load()}; }

  private:
    std::atomic<int64_t> acked_{0};
    std::atomic<int64_t> failed_{0};
};

class PahoReceiptSender final : public MqttReceiptSender {
  public:
    PahoReceiptSender(const MqttConfig& config, std::unique_ptr<mqtt::async_client> client)
        : settings_(receipt_settings(config)),
          client_(std::move(client)),
          backoff_(Backoff::jittered(config.endpoint.reconnect_initial,
                                     config.endpoint.reconnect_max, seeded_random(0))) {
        paho::on_connection_end(*client_, [this](std::string cause) {
            connected_ = false;
            log_warning("receipt connection ended: " + cause);
        });
    }

    ~PahoReceiptSender() override {
        try {
            if (connected_) client_->disconnect(std::chrono::milliseconds(0));
        } catch (const mqtt::exception&) {
            // Going away: the broker sees the socket close either way.
        }
        client_->disable_callbacks();
    }

    Status send(const std::string& topic, const std::string& payload) override {
        if (!connected_) {
            Status status = reconnect();
            if (!status) return status;
        }
        try {
            client_->publish(topic, payload.data(), payload.size(), 1, false, nullptr, acks_);
            return Status::ok();
        } catch (const mqtt::exception& error) {
            return Status::error(StatusCode::kUnavailable,
                                 "receipt to " + topic + ": " + paho::describe(error));
        }
    }

    ReceiptAcks acks() const override { return acks_.read(); }

  private:
    // The receipts thread only. Tries at most once per backoff pause.
    Status reconnect() {
        if (pending_connect_.finished_connected()) {
            // An attempt that timed out (paho's receive thread was held by a
            // session's callback) connected after all: clean start and no
            // subscriptions, so it is as good as a new one. Set before the
            // check, so that a loss in between leaves it false.
            connected_ = true;
            if (client_->is_connected()) {
                failures_ = 0;
                log_info("receipt connection to " + settings_.endpoint.uri +
                         " completed after its timeout");
                return Status::ok();
            }
            connected_ = false;
        }
        const auto now = std::chrono::steady_clock::now();
        if (now < next_attempt_) {
            return Status::error(StatusCode::kUnavailable, "receipt connection is down");
        }
        auto connack = paho::connect(
            *client_, settings_, "receipt connect to " + settings_.endpoint.uri, pending_connect_);
        if (!connack) {
            ++failures_;
            next_attempt_ = now + backoff_.delay(failures_);
            return connack.status();
        }
        failures_ = 0;
        connected_ = true;
        return Status::ok();
    }

    const paho::ConnectSettings settings_;
    AckCounter acks_;  // outlives client_: declared before it
    std::unique_ptr<mqtt::async_client> client_;
    paho::PendingConnect pending_connect_;  // the receipts thread only
    Backoff backoff_;
    std::atomic<bool> connected_{false};  // written by paho's thread too
    int64_t failures_ = 0;
    std::chrono::steady_clock::time_point next_attempt_{};
};

}  // namespace

Result<std::unique_ptr<MqttReceiptSender>> make_receipt_sender(const MqttConfig& config) {
    auto client = paho::make_client(receipt_settings(config), "receipt MQTT client", kClientQueue);
    if (!client) return client.status();
    return std::unique_ptr<MqttReceiptSender>(
        std::make_unique<PahoReceiptSender>(config, std::move(*client)));
}

}  // namespace outpost::bridge
