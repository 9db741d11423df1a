// Which path the sessions take (BatchConfig) and where the batched one dials.
#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>

#include <memory>
#include <string>

#include "bridge/config.h"
#include "rocketmq/tls_socket.h"

namespace outpost::bridge {

bool uses_batched_path(const BridgeConfig& config) {
    return config.batch.max_messages > 1;
}

Result<SubscriberHost> subscriber_host(const std::string& uri) {
    const auto refused = [&uri](const std::string& why) {
        return Status::error(StatusCode::kInvalidArgument,
                             "\"" + uri + "\" " + why +
                                 ": forwarding in batches (batch.max_messages > 1) dials "
                                 "tcp://host:port or ssl://host:port; fix the uri, or set "
                                 "batch.max_messages to 1");
    };
    SubscriberHost where;
    std::string address;
    if (uri.rfind("tcp://", 0) == 0) {
        address = uri.substr(6);
    } else if (uri.rfind("ssl://", 0) == 0) {
        address = uri.substr(6);
        where.tls = true;
    } else {
        return refused("is neither tcp:// nor ssl://");
    }
    const std::size_t colon = address.rfind(':');
    if (colon == std::string::npos || colon == 0) return refused("names no host and port");
    const std::string port = address.substr(colon + 1);
    if (port.empty() || port.size() > 5 || port.find_first_not_of("0123456789") != std::string::npos ||
        std::stoul(port) == 0 || std::stoul(port) > 65535) {
        return refused("has no valid port");
    }
    std::string host = address.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
        host = host.substr(1, host.size() - 2);
    }
    if (host.find_first_of("[]/") != std::string::npos) return refused("has no valid host");
    where.host = host;
    where.port = port;
    return where;
}

Result<std::shared_ptr<const rocketmq::TlsContext>> subscriber_tls(const MqttConfig& mqtt) {
    if (mqtt.endpoint.uri.rfind("ssl://", 0) != 0) {
        return std::shared_ptr<const rocketmq::TlsContext>();
    }
    const MqttTlsOptions& tls = mqtt.endpoint.tls;
    rocketmq::TlsOptions options;
    options.ca_file = tls.ca_file;
    options.cert_file = tls.cert_file;
    options.key_file = tls.key_file;
    options.key_password = tls.key_password;
    options.insecure_skip_verify = !tls.verify_server;  // warned about at start
    options.settings = "mqtt.tls";
    return rocketmq::TlsContext::create(options);
}

Result<std::string> resolve_subscriber_address(const SubscriberHost& where) {
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const int failed = ::getaddrinfo(where.host.c_str(), where.port.c_str(), &hints, &found);
    if (failed != 0 || found == nullptr) {
        return Status::error(StatusCode::kUnavailable,
                             "cannot resolve MQTT broker " + where.host + ": " +
                                 (failed != 0 ? ::gai_strerror(failed) : "no address"));
    }
    char text[INET6_ADDRSTRLEN] = {};
    std::string address;
    if (found->ai_family == AF_INET6) {
        ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(found->ai_addr)->sin6_addr, text,
                    sizeof text);
        address = "[" + std::string(text) + "]:" + where.port;
    } else {
        ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr, text,
                    sizeof text);
        address = std::string(text) + ":" + where.port;
    }
    ::freeaddrinfo(found);
    return address;
}

}  // namespace outpost::bridge
