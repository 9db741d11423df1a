// A real paho MQTT v5 client for the broker tests: a gateway (its
// certificate, on the gateway listener) or a bridge (user name and password,
// on the bridge listener), with any client id, that records what it receives
// and reports the broker's reason codes instead of throwing.
#ifndef OUTPOST_TESTS_INTEGRATION_BROKER_BROKER_CLIENT_H
#define OUTPOST_TESTS_INTEGRATION_BROKER_BROKER_CLIENT_H

#include <mqtt/async_client.h>

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "shipped_broker.h"

namespace outpost::testing {

struct ClientLogin {
    std::string client_id;
    std::optional<CertFiles> certificate;  // set: a gateway on the gateway listener
    std::string username;                  // else: the bridge listener
    std::string password;
    bool clean_start = true;
    std::uint32_t session_expiry_s = 0;
};

inline ClientLogin gateway_login(const CertFiles& certificate, const std::string& client_id) {
    ClientLogin login;
    login.client_id = client_id;
    login.certificate = certificate;
    return login;
}

// The bridge's session: persistent, as outpost-bridge connects.
inline ClientLogin bridge_login(const std::string& client_id,
                                const std::string& password = kBridgePassword) {
    ClientLogin login;
    login.client_id = client_id;
    login.username = kBridgeUser;
    login.password = password;
    login.clean_start = false;
    login.session_expiry_s = 3600;
    return login;
}

class BrokerClient final {
  public:
    BrokerClient(const ShippedBroker& broker, ClientLogin login)
        : login_(std::move(login)),
          client_(login_.certificate ? broker.gateway_uri() : broker.bridge_uri(), login_.client_id,
                  mqtt::create_options(MQTTVERSION_5), nullptr),
          ca_file_(broker.ca().cert) {
        client_.set_message_callback([this](mqtt::const_message_ptr message) {
            std::lock_guard<std::mutex> lock(mutex_);
            received_.push_back(message->get_topic());
        });
    }
    ~BrokerClient() {
        try {
            if (client_.is_connected()) client_.disconnect()->wait_for(std::chrono::seconds(5));
        } catch (const mqtt::exception&) {
        }
    }

    // 0 when the broker accepted the CONNECT; else the CONNACK's reason code
    // (0x87 Not authorized, ...) or, when there was none, paho's error code.
    int connect() {
        mqtt::connect_options options;
        options.set_mqtt_version(MQTTVERSION_5);
        options.set_clean_start(login_.clean_start);
        options.set_connect_timeout(10);
        if (login_.session_expiry_s > 0) {
            mqtt::properties properties;
            properties.add(
                mqtt::property(mqtt::property::SESSION_EXPIRY_INTERVAL, login_.session_expiry_s));
            options.set_properties(properties);
        }
        if (!login_.username.empty()) options.set_user_name(login_.username);
        if (!login_.password.empty()) options.set_password(login_.password);
        mqtt::ssl_options ssl;
        ssl.set_trust_store(ca_file_);
        if (login_.certificate) {
            ssl.set_key_store(login_.certificate->cert);
            ssl.set_private_key(login_.certificate->key);
        }
        options.set_ssl(ssl);
        try {
            auto token = client_.connect(options);
            if (!token->wait_for(std::chrono::seconds(15))) return -1;
            const mqtt::connect_response response = token->get_connect_response();
            session_present_ = response.is_session_present();
            const mqtt::properties& properties = response.get_properties();
            if (properties.contains(mqtt::property::MAXIMUM_PACKET_SIZE)) {
                maximum_packet_size_ =
                    mqtt::get<uint32_t>(properties, mqtt::property::MAXIMUM_PACKET_SIZE);
            }
            return 0;
        } catch (const mqtt::exception& error) {
            return error.get_reason_code() != 0 ? error.get_reason_code()
                                                : error.get_return_code();
        }
    }

    // The SUBACK's reason code: the granted QoS (0-2) or a refusal (>= 0x80).
    int subscribe(const std::string& filter) {
        try {
            auto token = client_.subscribe(filter, 1);
            if (!token->wait_for(std::chrono::seconds(10))) return -1;
            return token->get_reason_code();
        } catch (const mqtt::exception& error) {
            return error.get_reason_code() != 0 ? error.get_reason_code()
                                                : error.get_return_code();
        }
    }

    // The PUBACK's reason code (0: accepted), paho's error code when the
    // publish failed without one, -1 when no answer came.
    int publish(const std::string& topic, const std::string& payload) {
        try {
            auto token = client_.publish(topic, payload.data(), payload.size(), 1, false);
            if (!token->wait_for(std::chrono::seconds(10))) return -1;
            return token->get_reason_code();
        } catch (const mqtt::exception& error) {
            return error.get_reason_code() != 0 ? error.get_reason_code()
                                                : error.get_return_code();
        }
    }

    void disconnect() { client_.disconnect()->wait_for(std::chrono::seconds(10)); }
    bool connected() const { return client_.is_connected(); }
    bool session_present() const { return session_present_; }
    std::uint32_t maximum_packet_size() const { return maximum_packet_size_; }
    std::vector<std::string> received() {
        std::lock_guard<std::mutex> lock(mutex_);
        return received_;
    }

  private:
    ClientLogin login_;
    mqtt::async_client client_;
    std::string ca_file_;
    bool session_present_ = false;
    std::uint32_t maximum_packet_size_ = 0;
    std::mutex mutex_;
    std::vector<std::string> received_;  // topics, in arrival order
};

// The bridge's subscription: what outpost-bridge subscribes to (its default
// shared group and its default filter, plus events).
constexpr const char* kBridgeAlarms = "$share/outpost-bridge/outpost/+/alarm/+";
constexpr const char* kBridgeEvents = "$share/outpost-bridge/outpost/+/event/+";

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_INTEGRATION_BROKER_BROKER_CLIENT_H
