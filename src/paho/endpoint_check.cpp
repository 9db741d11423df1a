#include "paho/endpoint_check.h"

namespace outpost::paho {

std::string endpoint_problem(const MqttEndpoint& endpoint) {
    const std::string& uri = endpoint.uri;
    if (uri.rfind("tcp://", 0) != 0 && uri.rfind("ssl://", 0) != 0) {
        return "endpoint.uri '" + uri + "' must start with tcp:// or ssl://";
    }
    if (endpoint.keepalive.count() <= 0) return "endpoint.keepalive must be positive";
    if (endpoint.connect_timeout.count() <= 0) return "endpoint.connect_timeout must be positive";
    if (endpoint.reconnect_initial.count() <= 0) {
        return "endpoint.reconnect_initial must be positive";
    }
    if (endpoint.reconnect_max < endpoint.reconnect_initial) {
        return "endpoint.reconnect_max must not be below endpoint.reconnect_initial";
    }
    return {};
}

}  // namespace outpost::paho
