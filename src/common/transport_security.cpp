#include "common/transport_security.h"

#include <arpa/inet.h>
#include <netinet/in.h>

namespace outpost {
namespace {

// The first host of `leg` that is not loopback, or "" when all are.
std::string first_remote_host(const LegSecurity& leg) {
    for (const std::string& host : leg.hosts) {
        if (!is_loopback_host(host)) return host;
    }
    return "";
}

std::string field(const LegSecurity& leg, const std::string& key) {
    return leg.section + "." + key;
}

}  // namespace

bool is_loopback_host(const std::string& host) {
    if (host == "localhost") return true;
    in_addr v4{};
    if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
    std::string bare = host;
    if (bare.size() > 2 && bare.front() == '[' && bare.back() == ']') {
        bare = bare.substr(1, bare.size() - 2);
    }
    in6_addr v6{};
    return inet_pton(AF_INET6, bare.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

std::string host_of(const std::string& address) {
    std::string rest = address;
    if (const std::size_t scheme = rest.find("://"); scheme != std::string::npos) {
        rest = rest.substr(scheme + 3);
    }
    if (const std::size_t slash = rest.find('/'); slash != std::string::npos) {
        rest = rest.substr(0, slash);
    }
    if (!rest.empty() && rest.front() == '[') {
        const std::size_t close = rest.find(']');
        return close == std::string::npos ? rest : rest.substr(1, close - 1);
    }
    const std::size_t colon = rest.rfind(':');
    return colon == std::string::npos ? rest : rest.substr(0, colon);
}

LegSecurity mqtt_leg_security(const std::string& section, const MqttEndpoint& endpoint,
                              bool allow_plaintext_credentials, bool tls_settings_given) {
    const std::string& uri = endpoint.uri;
    LegSecurity leg;
    leg.section = section;
    leg.encrypted = uri.rfind("ssl://", 0) == 0;
    leg.plaintext_because = section + ".uri is " + uri;
    leg.tls_settings_given = tls_settings_given;
    leg.verify_server = endpoint.tls.verify_server;
    leg.hosts = {host_of(uri)};
    if (!endpoint.password.empty()) leg.credential_field = "password";
    leg.allow_plaintext_credentials = allow_plaintext_credentials;
    return leg;
}

void check_leg_security(const LegSecurity& leg, JsonObjectReader& section_reader) {
    if (leg.encrypted) return;
    if (leg.tls_settings_given) {
        section_reader.error("tls", "is set but " + leg.plaintext_because +
                                        ": the connection would not be encrypted and the TLS "
                                        "settings would be ignored. Encrypt the connection or "
                                        "remove " + field(leg, "tls"));
    }
    const std::string remote = first_remote_host(leg);
    if (!leg.credential_field.empty() && !remote.empty() && !leg.allow_plaintext_credentials) {
        section_reader.error(
            leg.credential_field,
            "would travel unencrypted to " + remote + " (" + leg.plaintext_because +
                "): anyone on the path could read or reuse it. Encrypt the connection, or set " +
                field(leg, "allow_plaintext_credentials") + " to true on a network you trust");
    }
}

std::vector<std::string> leg_security_warnings(const LegSecurity& leg) {
    std::vector<std::string> warnings;
    const std::string remote = first_remote_host(leg);
    if (!leg.encrypted && !leg.credential_field.empty() && !remote.empty() &&
        leg.allow_plaintext_credentials) {
        warnings.push_back(field(leg, "allow_plaintext_credentials") + " is true: " +
                           field(leg, leg.credential_field) + " travels unencrypted to " +
                           remote + " (" + leg.plaintext_because +
                           "), readable by anyone on the path");
    }
    if (verification_disabled(leg)) {
        warnings.push_back(field(leg, "tls") +
                           " does not verify the server's certificate: anyone on the path can "
                           "pose as the server, read what is sent and forge its answers (use it "
                           "only against throwaway test servers)");
    }
    return warnings;
}

bool verification_disabled(const LegSecurity& leg) {
    return leg.encrypted && !leg.verify_server;
}

}  // namespace outpost
