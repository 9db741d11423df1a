// What the tests of our MQTT v5 subscriber (src/bridge/mqtt/v5) share: the
// broker they run against (mosquitto, or mochi-mqtt when
// OUTPOST_MQTT5_TEST_BROKER=mochi), a paho publisher, and reading the
// PUBACKs the broker logged. Throws on setup failures (test scaffolding).
#ifndef OUTPOST_TESTS_INTEGRATION_MQTT5_HARNESS_H
#define OUTPOST_TESTS_INTEGRATION_MQTT5_HARNESS_H

#include <mqtt/async_client.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "bridge/mqtt/v5/subscriber.h"
#include "mochi_fixture.h"
#include "mosquitto_fixture.h"

namespace outpost::testing {

inline bool on_mochi() {
    const char* broker = std::getenv("OUTPOST_MQTT5_TEST_BROKER");
    return broker != nullptr && std::string(broker) == "mochi";
}

// The broker of this run. On mosquitto max_inflight_messages is raised
// above every Receive Maximum the tests use, so the subscriber's own
// Receive Maximum is the limit they see.
class TestBroker final {
  public:
    TestBroker() {
        if (on_mochi()) {
            mochi_ = std::make_unique<MochiBroker>();
        } else {
            MosquittoConfig config;
            config.max_inflight_messages = 1000;
            mosquitto_ = std::make_unique<Mosquitto>(config);
        }
    }
    std::string address() const { return "127.0.0.1:" + std::to_string(port()); }
    std::string uri() const { return "tcp://" + address(); }
    int port() const { return mochi_ ? mochi_->port() : mosquitto_->port(); }
    std::string log() const { return mochi_ ? mochi_->log() : mosquitto_->log(); }

    // The packet identifiers of the PUBACKs `client_id` sent, in the order
    // the broker logged them ("Received PUBACK from ID (Mid: N" on both).
    std::vector<int> pubacks_from(const std::string& client_id) const {
        const std::string text = log();
        const std::string marker = "Received PUBACK from " + client_id + " (Mid: ";
        std::vector<int> ids;
        for (std::size_t at = text.find(marker); at != std::string::npos;
             at = text.find(marker, at + 1)) {
            ids.push_back(std::atoi(text.c_str() + at + marker.size()));
        }
        return ids;
    }

  private:
    std::unique_ptr<Mosquitto> mosquitto_;
    std::unique_ptr<MochiBroker> mochi_;
};

// A paho v5 publisher that waits for each QoS 1 PUBACK (so the broker has
// routed the message before publish() returns).
class TestPublisher final {
  public:
    explicit TestPublisher(const std::string& uri)
        : client_(uri, "test-publisher", mqtt::create_options(MQTTVERSION_5), nullptr) {
        auto options = mqtt::connect_options_builder()
                           .mqtt_version(MQTTVERSION_5)
                           .clean_start(true)
                           .finalize();
        if (!client_.connect(options)->wait_for(std::chrono::seconds(10))) {
            throw std::runtime_error("publisher connect to " + uri + " timed out");
        }
    }
    ~TestPublisher() {
        try {
            client_.disconnect()->wait_for(std::chrono::seconds(5));
        } catch (const mqtt::exception&) {
        }
    }
    void publish(const std::string& topic, const std::string& payload, int qos = 1) {
        auto token = client_.publish(mqtt::make_message(topic, payload, qos, false));
        if (!token->wait_for(std::chrono::seconds(30))) throw std::runtime_error("no PUBACK");
    }

  private:
    mqtt::async_client client_;
};

inline bridge::mqtt5::SubscriberOptions subscriber_options(const TestBroker& broker,
                                                           const std::string& client_id) {
    bridge::mqtt5::SubscriberOptions options;
    options.address = broker.address();
    options.client_id = client_id;
    return options;
}

inline bridge::mqtt5::Deadline seconds_from_now(int seconds) {
    return std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
}

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_INTEGRATION_MQTT5_HARNESS_H
