// outpostd's configuration: one JSON file (see parse_daemon_config and
// `outpostd --help`). Only gateway_id and database.path have no default.
// Every field maps onto the options struct of the part it configures; the
// daemon adds only what it owns itself (ingestion socket, metrics, logging,
// drain timeout).
#ifndef OUTPOST_DAEMON_CONFIG_H
#define OUTPOST_DAEMON_CONFIG_H

#include <chrono>
#include <cstdint>
#include <set>
#include <string>

#include "common/service_log.h"
#include "common/transport_security.h"
#include "daemon/telemetry_scheduling.h"
#include "outpost/publisher_options.h"
#include "outpost/status.h"
#include "outpost/store_options.h"

namespace outpost::daemon {

// The telemetry lane; it connects with the broker settings of the publisher
// (its own client id).
struct TelemetryConfig {
    bool enabled = false;   // the "telemetry" object is present
    std::string client_id;  // empty: "outpost-<gatewayId>-telemetry"
    size_t ring_capacity = 4096;
    size_t max_payload_bytes = 4096;
    bool coalesce = false;
    uint32_t max_send_rate = 5000;  // TelemetryOptions::max_send_rate; 0: no cap
    // Where firmware sends telemetry datagrams ("<key>\n<payload>").
    std::string datagram_socket = "/run/outpost/telemetry.sock";
    // How the telemetry process shares the CPU with the alarm path
    // ("nice" or "idle"; telemetry_scheduling.h).
    TelemetryScheduling scheduling = TelemetryScheduling::kNice;
};

// The local alarm ingestion socket (AF_UNIX stream, one JSON line per request).
struct IngestConfig {
    std::string socket_path = "/run/outpost/outpostd.sock";  // "" turns it off
    unsigned socket_mode = 0660;
    int max_clients = 16;
    size_t max_request_bytes = 65536;
    std::chrono::milliseconds idle_timeout{30000};
};

struct MetricsConfig {
    // "host:port" of the HTTP endpoint (GET /metrics); "" turns it off.
    // Port 0 picks a free port (logged).
    std::string listen;
    // Binding anything but a loopback address exposes the figures to the
    // network; it must be asked for explicitly.
    bool allow_non_loopback = false;
    // node-exporter textfile collector file, replaced atomically; "" = off.
    std::string textfile;
    std::chrono::milliseconds textfile_interval{15000};
};

struct LoggingConfig {
    LogLevel level = LogLevel::kInfo;
    bool syslog = false;  // also to syslog(3), facility daemon
};

struct DaemonConfig {
    // The file it was read from (load_daemon_config; empty when parsed from
    // text). The telemetry process reads the same file.
    std::string config_path;
    std::string database_path;
    StoreOptions store;          // gateway_id, quota, retention, ...
    PublisherOptions publisher;  // broker, TLS, window, backoff, ...
    // broker.allow_plaintext_credentials: a password may go over tcp:// to
    // a host that is not loopback (warned about at start); refused otherwise.
    bool allow_plaintext_credentials = false;
    // How long SIGTERM waits for the PUBACKs of the in-flight window.
    std::chrono::milliseconds drain_timeout{5000};
    TelemetryConfig telemetry;
    IngestConfig ingest;
    MetricsConfig metrics;
    LoggingConfig logging;
    // How often STATUS= goes to systemd and a status line to the log (debug).
    std::chrono::milliseconds status_interval{10000};
};

// What a configuration of only the required keys gives, but for them: the
// structs' defaults and outpostd's own (database.check_once_per_boot).
DaemonConfig daemon_config_defaults();

// Parses and validates a configuration document. Fails with
// kInvalidArgument; the message lists every problem found, one per line,
// each naming its field ("publisher.window must be an integer from 1 to
// 65535"). Unknown fields are errors. The second form also gives, in
// *keys_read, the path of every key the parser asked for
// (common/json_object_reader.h).
Result<DaemonConfig> parse_daemon_config(const std::string& json_text);
Result<DaemonConfig> parse_daemon_config(const std::string& json_text,
                                         std::set<std::string>* keys_read);

// The broker connection (the publisher's and the telemetry lane's) as the
// transport rules see it (common/transport_security.h). `tls_settings_given`:
// the configuration has a broker.tls object.
LegSecurity broker_leg_security(const DaemonConfig& config, bool tls_settings_given = false);

// Reads `path` and parses it. kNotFound when the file cannot be read.
Result<DaemonConfig> load_daemon_config(const std::string& path);

}  // namespace outpost::daemon

#endif  // OUTPOST_DAEMON_CONFIG_H
