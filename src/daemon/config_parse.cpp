// JSON -> DaemonConfig. Every problem is reported with the path of its field,
// all at once (common/json_object_reader.h).
#include <cstdio>
#include <nlohmann/json.hpp>

#include "common/json_object_reader.h"
#include "common/listen_address.h"
#include "common/mqtt_endpoint_reader.h"
#include "common/text_checks.h"
#include "daemon/config.h"

namespace outpost::daemon {
namespace {

using nlohmann::json;

constexpr int64_t kDayMs = 24LL * 3600 * 1000;

void read_ms(JsonObjectReader& in, const std::string& key, std::chrono::milliseconds& out,
             int64_t min, int64_t max) {
    int64_t value = out.count();
    in.read_integer(key, value, min, max);
    out = std::chrono::milliseconds(value);
}

void read_database(JsonObjectReader& in, DaemonConfig& config) {
    StoreOptions& store = config.store;
    in.read_string("path", config.database_path, true);
    // The store's own minimum, so --check-config refuses what open would.
    in.read_integer("quota_bytes", store.quota_bytes, StoreOptions::kMinQuotaBytes, INT64_MAX);
    int64_t retention_s =
        std::chrono::duration_cast<std::chrono::seconds>(store.sent_retention).count();
    in.read_integer("sent_retention_s", retention_s, 0, 365LL * 24 * 3600);
    store.sent_retention = std::chrono::seconds(retention_s);
    in.read_integer("purge_batch_rows", store.purge_batch_rows, 1, 100000);
    in.read_integer("max_batch", store.max_batch, 1, 100000);
    int64_t commit_wait_us = store.commit_wait.count();
    in.read_integer("commit_wait_us", commit_wait_us, 0, 100000);
    store.commit_wait = std::chrono::microseconds(commit_wait_us);
    in.read_integer("max_event_bytes", store.max_event_bytes, 256, 16 * 1024 * 1024);
    read_ms(in, "busy_timeout_ms", store.busy_timeout, 0, 600000);
    std::string policy = "refuse";
    in.read_string("corruption_policy", policy);
    if (policy == "refuse") {
        store.corruption_policy = CorruptionPolicy::kRefuse;
    } else if (policy == "move_aside") {
        store.corruption_policy = CorruptionPolicy::kMoveAside;
    } else {
        in.error("corruption_policy",
                 "must be \"refuse\" or \"move_aside\" (got \"" + policy + "\")");
    }
    in.read_bool("check_on_open", store.check_on_open);
    in.read_bool("check_once_per_boot", store.check_once_per_boot);
}

void read_broker(JsonObjectReader& in, DaemonConfig& config) {
    MqttEndpoint& endpoint = config.publisher.endpoint;
    read_mqtt_endpoint(in, endpoint, false);
    read_ms(in, "connect_timeout_ms", endpoint.connect_timeout, 100, 300000);
    in.read_bool("allow_plaintext_credentials", config.allow_plaintext_credentials);
    check_leg_security(broker_leg_security(config, in.find("tls") != nullptr), in);
}

void read_publisher(JsonObjectReader& in, DaemonConfig& config) {
    PublisherOptions& publisher = config.publisher;
    in.read_integer("window", publisher.max_in_flight, 1, 65535);
    in.read_integer("max_attempts", publisher.max_attempts, 1, 1000);
    read_ms(in, "retry_initial_ms", publisher.retry_initial, 1, kDayMs);
    read_ms(in, "retry_max_ms", publisher.retry_max, 1, kDayMs);
    if (publisher.retry_max < publisher.retry_initial) {
        in.error("retry_max_ms", "must not be below publisher.retry_initial_ms");
    }
    read_ms(in, "reconnect_initial_ms", publisher.endpoint.reconnect_initial, 1, kDayMs);
    read_ms(in, "reconnect_max_ms", publisher.endpoint.reconnect_max, 1, kDayMs);
    if (publisher.endpoint.reconnect_max < publisher.endpoint.reconnect_initial) {
        in.error("reconnect_max_ms", "must not be below publisher.reconnect_initial_ms");
    }
    read_ms(in, "lease_retry_ms", publisher.lease_retry, 1, 600000);
    read_ms(in, "poll_interval_ms", publisher.poll_interval, 1, 600000);
    read_ms(in, "rescan_interval_ms", publisher.rescan_interval, 10, kDayMs);
    read_ms(in, "purge_interval_ms", publisher.purge_interval, 10, kDayMs);
    in.read_integer("mark_batch", publisher.mark_batch, 1, 100000);
    read_ms(in, "mark_delay_ms", publisher.mark_delay, 0, 60000);
    read_ms(in, "drain_timeout_ms", config.drain_timeout, 0, 600000);
    // receipts
    in.read_bool("receipts", publisher.receipts);
    read_ms(in, "receipt_timeout_ms", publisher.receipt_timeout, 100, kDayMs);
    read_ms(in, "receipt_timeout_max_ms", publisher.receipt_timeout_max, 100, kDayMs);
    if (publisher.receipt_timeout_max < publisher.receipt_timeout) {
        in.error("receipt_timeout_max_ms", "must not be below publisher.receipt_timeout_ms");
    }
    in.read_integer("max_unconfirmed", publisher.max_unconfirmed, 1, 1000000);
    if (publisher.receipts && publisher.max_unconfirmed < publisher.max_in_flight) {
        in.error("max_unconfirmed", "must not be below publisher.window");
    }
}

void read_telemetry(JsonObjectReader& in, TelemetryConfig& telemetry) {
    telemetry.enabled = true;
    in.read_string("client_id", telemetry.client_id);
    if (!telemetry.client_id.empty() && !is_valid_identifier(telemetry.client_id)) {
        in.error("client_id", "must match [A-Za-z0-9._-]{1,64}");
    }
    in.read_integer("ring_capacity", telemetry.ring_capacity, 1, 10000000);
    in.read_integer("max_payload_bytes", telemetry.max_payload_bytes, 1, 256 * 1024 * 1024);
    in.read_bool("coalesce", telemetry.coalesce);
    in.read_integer("max_send_rate", telemetry.max_send_rate, 0, 1000000);
    in.read_string("datagram_socket", telemetry.datagram_socket);
    std::string scheduling = telemetry_scheduling_name(telemetry.scheduling);
    in.read_string("scheduling", scheduling);
    if (auto parsed = parse_telemetry_scheduling(scheduling)) {
        telemetry.scheduling = *parsed;
    } else {
        in.error("scheduling", "must be \"nice\" or \"idle\" (got \"" + scheduling + "\")");
    }
}

// "0660": octal digits, as chmod takes them (JSON has no octal numbers).
void read_mode(JsonObjectReader& in, const std::string& key, unsigned& out) {
    const json* value = in.find(key);
    if (value == nullptr) return;
    const std::string text = value->is_string() ? value->get<std::string>() : "";
    if (text.empty() || text.size() > 4 ||
        text.find_first_not_of("01234567") != std::string::npos) {
        return in.error(key, "must be an octal mode as a string, e.g. \"0660\"");
    }
    out = static_cast<unsigned>(std::stoul(text, nullptr, 8));
}

void read_ingest(JsonObjectReader& in, IngestConfig& ingest) {
    in.read_string("socket", ingest.socket_path);
    read_mode(in, "socket_mode", ingest.socket_mode);
    if ((ingest.socket_mode & 0002) != 0) {
        char mode[16];
        std::snprintf(mode, sizeof mode, "%04o", ingest.socket_mode & 07777u);
        in.error("socket_mode", std::string("is ") + mode +
                                    ": every local user could record alarms into the outbox. "
                                    "Use \"0660\" and run the firmware in the socket's group");
    }
    in.read_integer("max_clients", ingest.max_clients, 1, 4096);
    in.read_integer("max_request_bytes", ingest.max_request_bytes, 1024, 16 * 1024 * 1024);
    read_ms(in, "idle_timeout_ms", ingest.idle_timeout, 100, kDayMs);
}

void read_metrics(JsonObjectReader& in, MetricsConfig& metrics) {
    in.read_string("listen", metrics.listen);
    in.read_bool("allow_non_loopback", metrics.allow_non_loopback);
    if (!metrics.listen.empty()) {
        Result<ListenAddress> address =
            parse_metrics_listen_address(metrics.listen, metrics.allow_non_loopback);
        if (!address.is_ok()) in.error("listen", address.status().message());
    }
    in.read_string("textfile", metrics.textfile);
    if (!metrics.textfile.empty() &&
        (metrics.textfile.size() < 6 ||
         metrics.textfile.compare(metrics.textfile.size() - 5, 5, ".prom") != 0)) {
        in.error("textfile", "must end in .prom (node-exporter reads only those)");
    }
    read_ms(in, "textfile_interval_ms", metrics.textfile_interval, 100, kDayMs);
}

void read_logging(JsonObjectReader& in, LoggingConfig& logging) {
    std::string level = log_level_name(logging.level);
    in.read_string("level", level);
    if (auto parsed = parse_log_level(level)) {
        logging.level = *parsed;
    } else {
        in.error("level",
                 "must be \"error\", \"warn\", \"info\" or \"debug\" (got \"" + level + "\")");
    }
    in.read_bool("syslog", logging.syslog);
}

}  // namespace

DaemonConfig daemon_config_defaults() {
    DaemonConfig config;
    // A daemon restarted in the same boot does not read a full store again.
    config.store.check_once_per_boot = true;
    return config;
}

Result<DaemonConfig> parse_daemon_config(const std::string& json_text) {
    return parse_daemon_config(json_text, nullptr);
}

Result<DaemonConfig> parse_daemon_config(const std::string& json_text,
                                         std::set<std::string>* keys_read) {
    Result<json> parsed = parse_config_object(json_text);
    if (!parsed.is_ok()) return parsed.status();
    const json& document = *parsed;
    DaemonConfig config = daemon_config_defaults();
    std::vector<std::string> errors;
    JsonObjectReader top(document, "", errors, keys_read);
    top.read_string("gateway_id", config.store.gateway_id, true);
    if (!config.store.gateway_id.empty() && !is_valid_identifier(config.store.gateway_id)) {
        top.error("gateway_id", "must match [A-Za-z0-9._-]{1,64}");
    }
    top.read_object("database", true, [&](JsonObjectReader& in) { read_database(in, config); });
    top.read_object("broker", false,
                    [&](JsonObjectReader& in) { read_broker(in, config); });
    top.read_object("publisher", false, [&](JsonObjectReader& in) { read_publisher(in, config); });
    top.read_object("telemetry", false,
                    [&](JsonObjectReader& in) { read_telemetry(in, config.telemetry); });
    top.read_object("ingest", false, [&](JsonObjectReader& in) { read_ingest(in, config.ingest); });
    top.read_object("metrics", false,
                    [&](JsonObjectReader& in) { read_metrics(in, config.metrics); });
    top.read_object("logging", false,
                    [&](JsonObjectReader& in) { read_logging(in, config.logging); });
    read_ms(top, "status_interval_ms", config.status_interval, 100, kDayMs);
    top.report_unknown_fields();
    if (!config.telemetry.datagram_socket.empty() &&
        config.telemetry.datagram_socket == config.ingest.socket_path) {
        errors.push_back("telemetry.datagram_socket must differ from ingest.socket");
    }
    if (!errors.empty()) {
        return Status::error(StatusCode::kInvalidArgument, describe_config_problems(errors));
    }
    return config;
}

LegSecurity broker_leg_security(const DaemonConfig& config, bool tls_settings_given) {
    return outpost::mqtt_leg_security("broker", config.publisher.endpoint,
                                      config.allow_plaintext_credentials, tls_settings_given);
}

Result<DaemonConfig> load_daemon_config(const std::string& path) {
    Result<std::string> text = read_config_file(path);
    if (!text.is_ok()) return text.status();
    Result<DaemonConfig> config = parse_daemon_config(*text);
    if (!config.is_ok()) return config.status().with_context(path);
    config->config_path = path;
    return config;
}

}  // namespace outpost::daemon
