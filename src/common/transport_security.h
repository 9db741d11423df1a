// How a connection Outpost opens may be protected, judged the same way for
// every leg of every program: outpostd's broker connection (its telemetry
// lane uses the same settings), the bridge's MQTT leg and its RocketMQ leg.
// Each program describes each leg as a LegSecurity when it parses its
// configuration and again when it starts. The rules:
//  1. TLS settings on a plaintext leg are a configuration error: they would
//     be ignored while the operator believes the leg is encrypted.
//  2. Credentials on a plaintext leg to any host that is not loopback are a
//     configuration error, unless the leg's allow_plaintext_credentials is
//     true; then they are warned about at start.
//  3. A leg that does not verify the server's certificate is warned about at
//     start, and each program shows it in its status and metrics.
#ifndef OUTPOST_COMMON_TRANSPORT_SECURITY_H
#define OUTPOST_COMMON_TRANSPORT_SECURITY_H

#include <string>
#include <vector>

#include "common/json_object_reader.h"
#include "outpost/mqtt_endpoint.h"

namespace outpost {

struct LegSecurity {
    // The configuration object of the leg ("broker", "mqtt", "rocketmq"):
    // messages name its fields from there.
    std::string section;
    bool encrypted = false;
    // Why the leg is plaintext, for messages ("broker.uri is tcp://...").
    std::string plaintext_because;
    // TLS settings (a "tls" object or some of its fields) are present.
    bool tls_settings_given = false;
    // Meaningful when encrypted: the server's certificate chain and name
    // are checked.
    bool verify_server = true;
    // The hosts the leg dials, as configured (names or numeric addresses).
    std::vector<std::string> hosts;
    // The field whose secret or credential the leg sends ("password",
    // "access_key"); empty when it sends none.
    std::string credential_field;
    bool allow_plaintext_credentials = false;
};

// An MQTT leg to `endpoint`: encrypted when its uri is ssl://; its
// password is its credential (empty: none).
LegSecurity mqtt_leg_security(const std::string& section, const MqttEndpoint& endpoint,
                              bool allow_plaintext_credentials, bool tls_settings_given);

// "localhost", 127.0.0.0/8, "::1" and "[::1]": traffic that never leaves
// the machine.
bool is_loopback_host(const std::string& host);

// The host of "scheme://host:port" or of "host:port" ("[::1]" keeps its
// brackets off: "::1"); the text itself when it has no port.
std::string host_of(const std::string& address);

// Reports rules 1 and 2 through `section_reader`, the reader of the leg's
// section, so each error names its field.
void check_leg_security(const LegSecurity& leg, JsonObjectReader& section_reader);

// The warnings of rules 2 and 3 for a leg that passed
// check_leg_security, each a sentence naming its field: log every one at
// start, at warning level.
std::vector<std::string> leg_security_warnings(const LegSecurity& leg);

// Rule 3 alone: the leg is encrypted and does not verify the server.
bool verification_disabled(const LegSecurity& leg);

}  // namespace outpost

#endif  // OUTPOST_COMMON_TRANSPORT_SECURITY_H
