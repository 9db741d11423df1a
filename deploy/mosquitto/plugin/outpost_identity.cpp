// outpost_identity: a mosquitto 2.0 plugin (plugin API version 5) that binds
// every client id to the identity that authenticated it, which mosquitto's
// configuration alone cannot say. Without it, any client that may log in can
// connect with another client's id: the broker hands it that client's
// session (clean start off) and drops the queued messages its ACL may not
// read, so a gateway could empty the bridge's session or keep it offline.
//
// On every CONNECT (MOSQ_EVT_BASIC_AUTH, called before the broker looks up
// an existing session under that id):
//   1. A client with a certificate (the gateway listener, require_certificate
//      true, use_identity_as_username false) is a gateway; its identity is
//      the certificate's one CN. A user name, if sent, must equal it. The
//      broker's user name becomes the CN (so ACL patterns' %u are the CN),
//      and the client id must be one of that gateway's (client_id_rules.h).
//      Accepted here: the TLS handshake already proved the certificate.
//   2. A client without a certificate (the bridge listener) must send a
//      user name that is a valid bridge name and use one of that name's
//      client ids; then the password file decides (this plugin defers).
// Anything else is refused with Not authorized before the session is
// touched. Step 1 relies on mosquitto handing a plugin a certificate only
// from a listener with require_certificate true, where the handshake
// verified it (mosquitto_broker.h, mosquitto_client_certificate): every such
// listener must trust the gateway CA alone. A client that asks for
// extended authentication never reaches this check, and the broker refuses
// it (no plugin offers a method).
#include <mosquitto.h>
#include <mosquitto_broker.h>
#include <mosquitto_plugin.h>
#include <openssl/asn1.h>
#include <openssl/objects.h>
#include <openssl/x509.h>

#include <cstring>
#include <string>

#include "client_id_rules.h"

namespace {

using outpost::broker_plugin::bridge_may_use;
using outpost::broker_plugin::bridge_username_problem;
using outpost::broker_plugin::gateway_identity_problem;
using outpost::broker_plugin::gateway_may_use;

mosquitto_plugin_id_t* plugin_id = nullptr;

std::string text_or_empty(const char* text) { return text != nullptr ? text : ""; }

int refuse(const std::string& client_id, const std::string& why) {
    mosquitto_log_printf(MOSQ_LOG_NOTICE, "outpost_identity: refused client id '%s': %s",
                         client_id.c_str(), why.c_str());
    return MOSQ_ERR_AUTH;
}

// The certificate subject's one CN, as UTF-8. Fails (false) when the subject
// has no CN, several, or one with an embedded NUL.
bool common_name_of(X509* certificate, std::string* common_name) {
    X509_NAME* subject = X509_get_subject_name(certificate);
    if (subject == nullptr) return false;
    const int at = X509_NAME_get_index_by_NID(subject, NID_commonName, -1);
    if (at < 0 || X509_NAME_get_index_by_NID(subject, NID_commonName, at) >= 0) return false;
    ASN1_STRING* data = X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, at));
    unsigned char* utf8 = nullptr;
    const int length = ASN1_STRING_to_UTF8(&utf8, data);
    if (length < 0) return false;
    const bool whole = std::strlen(reinterpret_cast<char*>(utf8)) == static_cast<size_t>(length);
    if (whole) common_name->assign(reinterpret_cast<char*>(utf8), length);
    OPENSSL_free(utf8);
    return whole;
}

int check_gateway(mosquitto* client, X509* certificate, const std::string& client_id) {
    std::string identity;
    if (!common_name_of(certificate, &identity)) {
        return refuse(client_id, "the certificate has no single, plain CN");
    }
    const std::string problem = gateway_identity_problem(identity);
    if (!problem.empty()) return refuse(client_id, "certificate CN '" + identity + "' " + problem);
    const std::string username = text_or_empty(mosquitto_client_username(client));
    if (!username.empty() && username != identity) {
        return refuse(client_id, "user name '" + username + "' is not the certificate CN '" +
                                     identity + "'");
    }
    if (!gateway_may_use(identity, client_id)) {
        return refuse(client_id, "gateway '" + identity + "' may use only outpost-" + identity +
                                     " and outpost-" + identity + "-telemetry");
    }
    if (mosquitto_set_username(client, identity.c_str()) != MOSQ_ERR_SUCCESS) {
        return refuse(client_id, "could not set the user name to the certificate CN");
    }
    return MOSQ_ERR_SUCCESS;
}

int check_bridge(mosquitto* client, const std::string& client_id) {
    const char* raw_username = mosquitto_client_username(client);
    if (raw_username == nullptr) return refuse(client_id, "no certificate and no user name");
    const std::string username = raw_username;
    const std::string problem = bridge_username_problem(username);
    if (!problem.empty()) return refuse(client_id, "user name '" + username + "' " + problem);
    if (!bridge_may_use(username, client_id)) {
        return refuse(client_id, "user '" + username + "' may use only " + username + ", " +
                                     username + "-<n> and " + username + "-receipts");
    }
    return MOSQ_ERR_PLUGIN_DEFER;  // the password file checks the password
}

int on_basic_auth(int /*event*/, void* event_data, void* /*userdata*/) {
    auto* auth = static_cast<mosquitto_evt_basic_auth*>(event_data);
    const std::string client_id = text_or_empty(mosquitto_client_id(auth->client));
    X509* certificate = static_cast<X509*>(mosquitto_client_certificate(auth->client));
    if (certificate == nullptr) return check_bridge(auth->client, client_id);
    const int result = check_gateway(auth->client, certificate, client_id);
    X509_free(certificate);
    return result;
}

}  // namespace

// mosquitto finds these three by name: exported whatever the project's
// default visibility (hidden, for liboutpost's sake).
#define OUTPOST_PLUGIN_ENTRY [[gnu::visibility("default")]]

extern "C" {

OUTPOST_PLUGIN_ENTRY int mosquitto_plugin_version(int supported_version_count, const int* supported_versions) {
    for (int i = 0; i < supported_version_count; ++i) {
        if (supported_versions[i] == 5) return 5;
    }
    return -1;
}

OUTPOST_PLUGIN_ENTRY int mosquitto_plugin_init(mosquitto_plugin_id_t* identifier,
                                               void** /*userdata*/, mosquitto_opt* /*options*/,
                                               int /*option_count*/) {
    plugin_id = identifier;
    return mosquitto_callback_register(plugin_id, MOSQ_EVT_BASIC_AUTH, on_basic_auth, nullptr,
                                       nullptr);
}

OUTPOST_PLUGIN_ENTRY int mosquitto_plugin_cleanup(void* /*userdata*/, mosquitto_opt* /*options*/,
                                                  int /*option_count*/) {
    return mosquitto_callback_unregister(plugin_id, MOSQ_EVT_BASIC_AUTH, on_basic_auth, nullptr);
}

}  // extern "C"
