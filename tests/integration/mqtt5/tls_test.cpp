// Our MQTT v5 subscriber over TLS against a mosquitto that requires client
// certificates: messages arrive and are acknowledged over the encrypted
// connection, the broker knows the subscriber by its certificate, and a
// broker certificate that does not chain to the configured CA or does not
// name the server is refused before any MQTT byte is sent.
#include <mqtt/async_client.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <memory>
#include <string>

#include "mqtt5_harness.h"
#include "rocketmq/tls_socket.h"
#include "temp_dir.h"
#include "test_pki.h"

using namespace outpost;
using namespace outpost::testing;
using bridge::mqtt5::Message;
using bridge::mqtt5::Subscriber;
using bridge::mqtt5::SubscriberOptions;

namespace {

struct TlsBroker {
    TestPki pki;
    CertFiles ca = pki.make_ca("mqtt5-tls-ca");
    CertFiles broker_cert = pki.issue(ca, "127.0.0.1", true);
    CertFiles subscriber_cert = pki.issue(ca, "v5-subscriber", false);
    CertFiles publisher_cert = pki.issue(ca, "v5-publisher", false);
    std::unique_ptr<Mosquitto> broker;

    TlsBroker() {
        MosquittoConfig config;
        config.allow_anonymous = false;
        config.tls = MosquittoTls{ca.cert, broker_cert.cert, broker_cert.key, true};
        config.max_inflight_messages = 1000;
        broker = std::make_unique<Mosquitto>(config);
    }

    SubscriberOptions subscriber(const rocketmq::TlsOptions& tls, const std::string& server) {
        SubscriberOptions options;
        options.address = "127.0.0.1:" + std::to_string(broker->port());
        options.client_id = "v5-tls-subscriber";
        options.clean_start = true;
        options.server_name = server;
        auto context = rocketmq::TlsContext::create(tls);
        if (!context.is_ok()) throw std::runtime_error(context.status().to_string());
        options.tls = *context;
        return options;
    }

    rocketmq::TlsOptions client_tls() const {
        rocketmq::TlsOptions tls;
        tls.ca_file = ca.cert;
        tls.cert_file = subscriber_cert.cert;
        tls.key_file = subscriber_cert.key;
        tls.settings = "mqtt.tls";
        return tls;
    }

    // A paho publisher with its own certificate, waiting for each PUBACK.
    void publish(const std::string& topic, const std::string& payload) {
        mqtt::async_client client(broker->uri(), "v5-tls-publisher",
                                  mqtt::create_options(MQTTVERSION_5), nullptr);
        mqtt::ssl_options ssl;
        ssl.set_trust_store(ca.cert);
        ssl.set_key_store(publisher_cert.cert);
        ssl.set_private_key(publisher_cert.key);
        auto options = mqtt::connect_options_builder()
                           .mqtt_version(MQTTVERSION_5)
                           .clean_start(true)
                           .ssl(ssl)
                           .finalize();
        if (!client.connect(options)->wait_for(std::chrono::seconds(10))) {
            throw std::runtime_error("TLS publisher connect timed out");
        }
        if (!client.publish(mqtt::make_message(topic, payload, 1, false))
                 ->wait_for(std::chrono::seconds(30))) {
            throw std::runtime_error("no PUBACK");
        }
        client.disconnect()->wait_for(std::chrono::seconds(5));
    }
};

}  // namespace

TEST_CASE("over TLS with a client certificate, messages arrive and are acknowledged") {
    TlsBroker tls;
    // The certificate names 127.0.0.1 and localhost: checked by name here,
    // as an ssl://localhost:port uri would be, while the address dialled
    // is numeric.
    auto subscriber = Subscriber::connect(tls.subscriber(tls.client_tls(), "localhost"));
    INFO(subscriber.status().to_string() << " | broker: " << tls.broker->log_tail());
    REQUIRE(subscriber.is_ok());
    REQUIRE((*subscriber)->subscribe({{"secure/#", 1}}, seconds_from_now(10)).is_ok());
    for (int i = 0; i < 3; ++i) tls.publish("secure/data", "reading-" + std::to_string(i));
    for (int i = 0; i < 3; ++i) {
        Result<Message> message = (*subscriber)->receive(seconds_from_now(30));
        INFO(message.status().to_string());
        REQUIRE(message.is_ok());
        CHECK(message->payload == "reading-" + std::to_string(i));
        REQUIRE((*subscriber)->acknowledge(message->packet_id).is_ok());
    }
    REQUIRE((*subscriber)->disconnect().is_ok());
    // mosquitto took the certificate's CN as the user name: authenticated
    // by certificate, there being no password.
    CHECK(tls.broker->log().find("u'v5-subscriber'") != std::string::npos);
}

TEST_CASE("a broker certificate from another CA is refused, naming the setting to check") {
    TlsBroker tls;
    TestPki other;
    const CertFiles stranger = other.make_ca("some-other-ca");
    rocketmq::TlsOptions options = tls.client_tls();
    options.ca_file = stranger.cert;
    auto subscriber = Subscriber::connect(tls.subscriber(options, ""));
    REQUIRE_FALSE(subscriber.is_ok());
    CHECK(subscriber.status().code() == StatusCode::kPermissionDenied);
    CHECK(subscriber.status().message().find("mqtt.tls.ca_file") != std::string::npos);
    CHECK(tls.broker->log().find("u'v5-subscriber'") == std::string::npos);
}

TEST_CASE("a broker certificate that does not name the server is refused") {
    TlsBroker tls;
    auto subscriber = Subscriber::connect(tls.subscriber(tls.client_tls(), "broker.example"));
    REQUIRE_FALSE(subscriber.is_ok());
    CHECK(subscriber.status().code() == StatusCode::kPermissionDenied);
    CHECK(subscriber.status().message().find("refused the server certificate") !=
          std::string::npos);
    // The same broker, named as its certificate names it, is accepted.
    auto named = Subscriber::connect(tls.subscriber(tls.client_tls(), "127.0.0.1"));
    INFO(named.status().to_string());
    CHECK(named.is_ok());
}

TEST_CASE("an encrypted client key loads with its key_password and is refused without it") {
    TlsBroker tls;
    TempDir dir;
    const std::string encrypted = dir.file("subscriber-key.enc.pem");
    const std::string command = "openssl pkey -in '" + tls.subscriber_cert.key +
                                "' -aes256 -passout pass:s3cret -out '" + encrypted + "'";
    REQUIRE(std::system(command.c_str()) == 0);
    rocketmq::TlsOptions options = tls.client_tls();
    options.key_file = encrypted;
    options.key_password = "wrong";
    auto refused = rocketmq::TlsContext::create(options);
    REQUIRE_FALSE(refused.is_ok());
    CHECK(refused.status().code() == StatusCode::kInvalidArgument);
    CHECK(refused.status().message().find("key_password is wrong") != std::string::npos);
    options.key_password = "s3cret";
    auto subscriber = Subscriber::connect(tls.subscriber(options, ""));
    INFO(subscriber.status().to_string());
    REQUIRE(subscriber.is_ok());
    CHECK(tls.broker->log().find("u'v5-subscriber'") != std::string::npos);
}
