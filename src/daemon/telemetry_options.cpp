#include "daemon/telemetry_options.h"

namespace outpost::daemon {

TelemetryOptions telemetry_options(const DaemonConfig& config) {
    const PublisherOptions& broker = config.publisher;
    TelemetryOptions options;
    options.gateway_id = config.store.gateway_id;
    options.endpoint = broker.endpoint;
    options.endpoint.client_id = config.telemetry.client_id;  // empty: the lane's default
    options.ring_capacity = config.telemetry.ring_capacity;
    options.max_payload_bytes = config.telemetry.max_payload_bytes;
    options.coalesce = config.telemetry.coalesce;
    options.max_send_rate = config.telemetry.max_send_rate;
    options.datagram_socket = config.telemetry.datagram_socket;
    return options;
}

}  // namespace outpost::daemon
