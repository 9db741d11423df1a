#include "common/mqtt_endpoint_reader.h"

#include "common/text_checks.h"

namespace outpost {

void read_mqtt_endpoint(JsonObjectReader& in, MqttEndpoint& endpoint, bool fixed_identity) {
    in.read_string("uri", endpoint.uri, fixed_identity);
    const std::string& uri = endpoint.uri;
    const bool reported_empty = fixed_identity && uri.empty();  // by read_string
    if (!reported_empty && uri.rfind("tcp://", 0) != 0 && uri.rfind("ssl://", 0) != 0) {
        in.error("uri", "must start with tcp:// or ssl:// (got \"" + uri + "\")");
    }
    in.read_string("client_id", endpoint.client_id, fixed_identity);
    if (!endpoint.client_id.empty() && !is_valid_identifier(endpoint.client_id)) {
        in.error("client_id", fixed_identity
                                  ? "must match [A-Za-z0-9._-]{1,64} and stay the same across "
                                    "restarts"
                                  : "must match [A-Za-z0-9._-]{1,64}");
    }
    in.read_string("username", endpoint.username);
    in.read_string("password", endpoint.password);
    if (!endpoint.password.empty() && endpoint.username.empty()) {
        in.error("password", "is set without " + in.field("username"));
    }
    in.read_object("tls", false, [&](JsonObjectReader& tls_in) {
        MqttTlsOptions& tls = endpoint.tls;
        tls_in.read_string("ca_file", tls.ca_file);
        tls_in.read_string("cert_file", tls.cert_file);
        tls_in.read_string("key_file", tls.key_file);
        tls_in.read_string("key_password", tls.key_password);
        tls_in.read_bool("verify_server", tls.verify_server);
        if (tls.cert_file.empty() != tls.key_file.empty()) {
            tls_in.error("cert_file",
                         "and " + tls_in.field("key_file") + " must be given together");
        }
    });
    int64_t keepalive_s = endpoint.keepalive.count();
    in.read_integer("keepalive_s", keepalive_s, 5, 65535);
    endpoint.keepalive = std::chrono::seconds(keepalive_s);
}

}  // namespace outpost
