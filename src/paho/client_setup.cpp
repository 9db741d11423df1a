#include "paho/client_setup.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <utility>

// paho's C headers only declare C linkage when included through MQTTAsync.h.
extern "C" {
#include <MQTTAsync.h>
#include <MQTTReasonCodes.h>
}

namespace outpost::paho {
namespace {

// paho C initialises OpenSSL itself when its first client is created
// (SSL_library_init, every error string, every algorithm, the config file)
// unless told not to, even when no connection uses TLS. OpenSSL 1.1.0 and
// later initialise themselves at their first use, so a plain tcp:// client
// never pays for it and an ssl:// one gets what it uses when it uses it.
void leave_openssl_init_to_openssl() {
    MQTTAsync_init_options init = MQTTAsync_init_options_initializer;
    init.do_openssl_init = 0;
    MQTTAsync_global_init(&init);
}

// paho C 1.3.12 records every function entry and exit of its own code
// (level TRACE_MINIMUM, its default) into a ring of 400 entries of 312
// bytes that it allocates when its first client is created (Log.c), taking
// a second process-wide mutex and copying the function's name for each:
// 125 KB resident in every process, written for nothing unless a trace
// is switched on. MQTTASYNC_TRACE_ERROR keeps errors only, so the ring is
// allocated but never written (its pages are never touched) and the entry
// and exit records are skipped (paho's own call-stack bookkeeping
// remains). An operator who sets MQTT_C_CLIENT_TRACE or
// MQTT_C_CLIENT_TRACE_LEVEL to debug paho keeps paho's default.
void record_errors_only_in_paho_trace() {
    if (std::getenv("MQTT_C_CLIENT_TRACE") != nullptr ||
        std::getenv("MQTT_C_CLIENT_TRACE_LEVEL") != nullptr)
        return;
    MQTTAsync_setTraceLevel(MQTTASYNC_TRACE_ERROR);
}

}  // namespace

void configure_process() {
    static std::once_flag once;
    std::call_once(once, [] {
        leave_openssl_init_to_openssl();
        record_errors_only_in_paho_trace();
    });
}

Result<std::unique_ptr<mqtt::async_client>> make_client(const ConnectSettings& settings,
                                                        const std::string& what, int client_queue) {
    configure_process();
    try {
        mqtt::create_options create(MQTTVERSION_5);
        create.set_send_while_disconnected(false);
        create.set_max_buffered_messages(client_queue);
        return std::make_unique<mqtt::async_client>(
            settings.endpoint.uri, settings.endpoint.client_id, create,
            static_cast<mqtt::iclient_persistence*>(nullptr));
    } catch (const mqtt::exception& error) {
        return Status::error(StatusCode::kInvalidArgument,
                             what + " for " + settings.endpoint.uri + " as " +
                                 settings.endpoint.client_id + ": " + describe(error));
    } catch (const std::exception& error) {
        return Status::error(StatusCode::kInvalidArgument,
                             what + " for " + settings.endpoint.uri + " as " +
                                 settings.endpoint.client_id + ": " + error.what());
    }
}

namespace {

// Fills `options`, a default-constructed object, from `settings`. Build it
// where it lives and keep it alive until connect() returned: a copy made
// after a Session Expiry Interval was set carries dangling properties (paho
// C++ 1.2.0, fixed upstream after it), so the persistent session would
// silently die with the connection. async_client::connect() copies it while
// the original lives, which is safe.
void fill_connect_options(const ConnectSettings& settings, mqtt::connect_options& options) {
    options.set_mqtt_version(MQTTVERSION_5);  // before clean_start: it picks the field
    options.set_clean_start(settings.session_expiry_s == 0);
    mqtt::properties properties;
    if (settings.session_expiry_s > 0) {
        properties.add(mqtt::property(mqtt::property::SESSION_EXPIRY_INTERVAL,
                                      static_cast<int>(settings.session_expiry_s)));
    }
    if (settings.maximum_packet_size > 0) {
        properties.add(mqtt::property(mqtt::property::MAXIMUM_PACKET_SIZE,
                                      static_cast<int>(settings.maximum_packet_size)));
    }
    if (!properties.empty()) options.set_properties(std::move(properties));
    options.set_automatic_reconnect(false);  // the caller paces reconnects
    options.set_keep_alive_interval(settings.endpoint.keepalive);
    options.set_connect_timeout(std::max<int64_t>(
        1, std::chrono::duration_cast<std::chrono::seconds>(settings.endpoint.connect_timeout)
               .count()));
    if (!settings.endpoint.username.empty() || !settings.endpoint.password.empty()) {
        options.set_user_name(settings.endpoint.username);
        options.set_password(settings.endpoint.password);
    }
    if (settings.will) {
        options.set_will(mqtt::will_options(settings.will->topic, settings.will->payload,
                                            settings.will->qos, settings.will->retained));
    }
    if (settings.endpoint.uri.rfind("ssl://", 0) == 0) {
        const MqttTlsOptions& tls = settings.endpoint.tls;
        mqtt::ssl_options ssl;
        if (!tls.ca_file.empty()) ssl.set_trust_store(tls.ca_file);
        if (!tls.cert_file.empty()) ssl.set_key_store(tls.cert_file);
        if (!tls.key_file.empty()) ssl.set_private_key(tls.key_file);
        if (!tls.key_password.empty()) ssl.set_private_key_password(tls.key_password);
        ssl.set_enable_server_cert_auth(tls.verify_server);
        ssl.set_verify(tls.verify_server);
        options.set_ssl(std::move(ssl));
    }
}

// Throws what paho throws for a refused connect.
Connack read_connack(const mqtt::token& token) {
    // By value: get_connect_response() returns a temporary.
    const mqtt::connect_response response = token.get_connect_response();
    Connack connack;
    connack.mqtt_version = response.get_mqtt_version();
    connack.session_present = response.is_session_present();
    const mqtt::properties& properties = response.get_properties();
    if (properties.contains(mqtt::property::RECEIVE_MAXIMUM)) {
        connack.receive_maximum = mqtt::get<uint16_t>(properties, mqtt::property::RECEIVE_MAXIMUM);
    }
    if (properties.contains(mqtt::property::MAXIMUM_PACKET_SIZE)) {
        connack.maximum_packet_size =
            mqtt::get<uint32_t>(properties, mqtt::property::MAXIMUM_PACKET_SIZE);
    }
    return connack;
}

}  // namespace

Result<Connack> connect(mqtt::async_client& client, const ConnectSettings& settings,
                        const std::string& what, PendingConnect& pending) {
    if (pending.in_progress()) {
        return Status::error(StatusCode::kUnavailable,
                             what + ": the last attempt, which timed out, is still in progress "
                                    "inside paho; not starting another");
    }
    // paho C 1.3.12 drops a CONNECT for a connected client and never
    // answers it (the attempt would time out here and stay in progress for
    // good). A client is connected behind its owner's back when an attempt
    // landed after its timeout: PendingConnect::finished_connected().
    if (client.is_connected()) {
        return Status::error(StatusCode::kUnavailable,
                             what + ": the client is already connected; use that connection "
                                    "or disconnect first");
    }
    pending.token_.reset();
    mqtt::connect_options options;  // lives until connect() returned
    fill_connect_options(settings, options);
    try {
        mqtt::token_ptr token = client.connect(options);
        if (!token->wait_for(settings.endpoint.connect_timeout + std::chrono::seconds(2))) {
            pending.token_ = token;
            return Status::error(StatusCode::kTimeout, what + " timed out");
        }
        return read_connack(*token);
    } catch (const mqtt::exception& error) {
        return Status::error(StatusCode::kUnavailable, what + ": " + describe(error));
    } catch (const std::exception& error) {
        return Status::error(StatusCode::kUnavailable, what + ": " + error.what());
    }
}

void on_connection_end(mqtt::async_client& client, std::function<void(std::string)> on_end) {
    client.set_connection_lost_handler([on_end](const std::string& cause) {
        on_end(cause.empty() ? "connection lost" : "connection lost: " + cause);
    });
    client.set_disconnected_handler([on_end](const mqtt::properties&, mqtt::ReasonCode reason) {
        on_end("broker sent DISCONNECT, reason " + describe_reason(reason));
    });
}

std::string describe_reason(int reason) {
    char code[8];
    std::snprintf(code, sizeof code, "0x%02X", static_cast<unsigned>(reason) & 0xFFu);
    const char* name = MQTTReasonCode_toString(static_cast<MQTTReasonCodes>(reason));
    return std::string(code) + " (" + (name ? name : "unknown") + ")";
}

std::string describe(const mqtt::exception& error) {
    std::string text = error.what();
    if (error.get_reason_code() >= 0x80)
        text += "; reason " + describe_reason(error.get_reason_code());
    return text;
}

}  // namespace outpost::paho
