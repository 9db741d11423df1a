#include "daemon/telemetry_options.h"

namespace outpost::daemon {

TelemetryOptions telemetry_options(const DaemonConfig& config) {
    const PublisherOptions& broker = config.publisher;
    TelemetryOptions options;
    options.gateway_id = config.store.gateway_id;
    options.broker_uri = broker.broker_uri;
    options.client_id = config.telemetry.client_id;
    options.username = broker.username;
    options.password = broker.password;
    options.tls = broker.tls;
    options.ring_capacity = config.telemetry.ring_capacity;
    options.max_payload_bytes = config.telemetry.max_payload_bytes;
    options.coalesce = config.telemetry.coalesce;
    options.max_send_rate = config.telemetry.max_send_rate;
    options.reconnect_initial = broker.reconnect_initial;
    options.reconnect_max = broker.reconnect_max;
    options.keepalive = broker.keepalive;
    options.connect_timeout = broker.connect_timeout;
    options.datagram_socket = config.telemetry.datagram_socket;
    return options;
}

}  // namespace outpost::daemon
