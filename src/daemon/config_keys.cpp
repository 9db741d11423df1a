#include "daemon/config_keys.h"

#include <chrono>
#include <cstdio>

namespace outpost::daemon {
namespace {

using T = ConfigKeyType;

template <typename Duration>
long long seconds_of(Duration duration) {
    return std::chrono::duration_cast<std::chrono::seconds>(duration).count();
}

std::string octal(unsigned mode) {
    char text[8];
    std::snprintf(text, sizeof text, "%04o", mode & 07777u);
    return text;
}

}  // namespace

ConfigKeys daemon_config_keys(const DaemonConfig& shown) {
    const StoreOptions& store = shown.store;
    const PublisherOptions& publisher = shown.publisher;
    const TelemetryConfig& telemetry = shown.telemetry;
    const IngestConfig& ingest = shown.ingest;
    const MetricsConfig& metrics = shown.metrics;
    ConfigKeys keys = {
        required_config_key(
            "gateway_id", T::kString, store.gateway_id, "gw-1",
            "The gateway's identity, [A-Za-z0-9._-]{1,64}: a level of every topic, in "
            "every envelope, recorded in the database at creation."),
        config_section("database", true, "The alarm store."),
        required_config_key(
            "database.path", T::kString, shown.database_path, "/var/lib/outpost/outbox.db",
            "The SQLite database; its -wal file and <path>.lock (the publisher lease) "
            "live beside it."),
        config_key("database.quota_bytes", T::kInteger, store.quota_bytes, "bytes",
                   "Byte budget of the database's pages: SENT rows are purged first, oldest first, "
                   "then a new alarm is refused (store_full). At least 262144."),
        config_key(
            "database.sent_retention_s", T::kInteger, seconds_of(store.sent_retention), "s",
            "How long SENT rows (with receipts: confirmed rows) are kept before the retention "
            "purge. 0 to 31536000."),
        config_key("database.purge_batch_rows", T::kInteger, store.purge_batch_rows, "rows",
                   "Rows deleted per retention purge transaction. 1 to 100000."),
        config_key("database.max_batch", T::kInteger, store.max_batch, "requests",
                   "Group commit: at most this many write requests share one transaction and one "
                   "fsync. 1 to 100000."),
        config_key("database.commit_wait_us", T::kInteger, store.commit_wait.count(), "us",
                   "Group commit: how long a transaction that follows a shared one at once may "
                   "wait for the connections that wrote in the last few transactions (fewer "
                   "flushes and bytes on flash when several record in a loop); it ends as soon "
                   "as they are back and lasts at most four recent commits. A lone caller never "
                   "waits. 0 (off) to 100000."),
        config_key(
            "database.max_event_bytes", T::kInteger, store.max_event_bytes, "bytes",
            "The largest envelope the store accepts; bigger ones are refused before anything "
            "is written. 256 to 16777216."),
        config_key("database.busy_timeout_ms", T::kInteger, store.busy_timeout.count(), "ms",
                   "How long a writer waits for another process's write lock before failing with "
                   "busy. 0 to 600000."),
        config_key("database.corruption_policy", T::kString,
                   store.corruption_policy == CorruptionPolicy::kRefuse ? "refuse" : "move_aside",
                   "",
                   "A damaged database at open: \"refuse\" (open fails, the file is left alone) or "
                   "\"move_aside\" (renamed to <path>.corrupt-N, a fresh store is created)."),
        config_key("database.check_on_open", T::kBoolean, store.check_on_open, "",
                   "Run PRAGMA quick_check when the store opens (reads the whole file once)."),
        config_key("database.check_once_per_boot", T::kBoolean, store.check_once_per_boot, "",
                   "With check_on_open: skip the check when this file already passed it in this "
                   "boot."),
        config_section("broker", false,
                       "The MQTT connection of the alarm publisher and the telemetry lane."),
    };
    const ConfigKeys endpoint = mqtt_endpoint_keys(
        "broker", publisher.endpoint, false,
        "The MQTT client id; \"\" = outpost-<gateway_id>. [A-Za-z0-9._-]{1,64} when set.");
    keys.insert(keys.end(), endpoint.begin(), endpoint.end());
    const ConfigKeys rest = {
        config_key(
            "broker.connect_timeout_ms", T::kInteger, publisher.endpoint.connect_timeout.count(),
            "ms",
            "How long one connection attempt may take; the publisher loop waits meanwhile: keep "
            "WatchdogSec above twice this. 100 to 300000."),
        config_key("broker.allow_plaintext_credentials", T::kBoolean,
                   shown.allow_plaintext_credentials, "",
                   "Allow the password over tcp:// to a host that is not loopback (warned at every "
                   "start); refused otherwise."),
        config_section("publisher", false, "The alarm publisher."),
        config_key("publisher.window", T::kInteger, publisher.max_in_flight, "publishes",
                   "QoS 1 publishes awaiting their PUBACK at once; clamped to the broker's Receive "
                   "Maximum. 1 to 65535."),
        config_key("publisher.max_attempts", T::kInteger, publisher.max_attempts, "attempts",
                   "Broker refusals of one row (PUBACK reason >= 0x80) before it turns DEAD; "
                   "connection failures never count. 1 to 1000."),
        config_key(
            "publisher.retry_initial_ms", T::kInteger, publisher.retry_initial.count(), "ms",
            "First pause before a refused row is tried again; pauses double (with jitter) up to "
            "retry_max_ms."),
        config_key("publisher.retry_max_ms", T::kInteger, publisher.retry_max.count(), "ms",
                   "Longest pause between retries of a refused row; not below retry_initial_ms."),
        config_key("publisher.reconnect_initial_ms", T::kInteger,
                   publisher.endpoint.reconnect_initial.count(), "ms",
                   "First pause after a failed or lost connection; pauses double with jitter up to "
                   "reconnect_max_ms. Also paces restarts of the telemetry process."),
        config_key("publisher.reconnect_max_ms", T::kInteger,
                   publisher.endpoint.reconnect_max.count(), "ms",
                   "Longest pause between reconnect attempts; not below reconnect_initial_ms."),
        config_key(
            "publisher.lease_retry_ms", T::kInteger, publisher.lease_retry.count(), "ms",
            "How often a publisher without the outbox lease tries the lock again: how quickly a "
            "standby takes over after the holder dies."),
        config_key(
            "publisher.poll_interval_ms", T::kInteger, publisher.poll_interval.count(), "ms",
            "How often commits by other processes are looked for (PRAGMA data_version); alarms "
            "from outpostd's socket wake the publisher at once."),
        config_key(
            "publisher.rescan_interval_ms", T::kInteger, publisher.rescan_interval.count(), "ms",
            "How often the whole outbox is scanned again from the oldest PENDING row: the safety "
            "net, and how replayed rows are picked up."),
        config_key("publisher.purge_interval_ms", T::kInteger, publisher.purge_interval.count(),
                   "ms", "How often the retention purge runs (database.sent_retention_s)."),
        config_key(
            "publisher.mark_batch", T::kInteger, publisher.mark_batch, "marks",
            "SENT marks are committed together, in one transaction without a sync of its own, "
            "once this many PUBACKs wait or the oldest waited mark_delay_ms."),
        config_key(
            "publisher.mark_delay_ms", T::kInteger, publisher.mark_delay.count(), "ms",
            "The longest a PUBACK waits for its SENT mark to be committed with others (fewer "
            "bytes written per alarm); 0 commits at once."),
        config_key("publisher.drain_timeout_ms", T::kInteger, shown.drain_timeout.count(), "ms",
                   "At SIGTERM, how long to wait for the PUBACKs in flight; rows without one stay "
                   "PENDING and go out after the restart."),
        config_key(
            "publisher.receipts", T::kBoolean, publisher.receipts, "",
            "Wait for outpost-bridge's receipts: a row is confirmed once RocketMQ stored it, and "
            "published again when no receipt comes. false: the broker's PUBACK is final."),
        config_key(
            "publisher.receipt_timeout_ms", T::kInteger, publisher.receipt_timeout.count(), "ms",
            "With receipts: how long after its PUBACK a row waits for its receipt before it is "
            "published again; later waits double up to receipt_timeout_max_ms."),
        config_key("publisher.receipt_timeout_max_ms", T::kInteger,
                   publisher.receipt_timeout_max.count(), "ms",
                   "With receipts: the longest pause between republishes of one row."),
        config_key(
            "publisher.max_unconfirmed", T::kInteger, publisher.max_unconfirmed, "rows",
            "With receipts: rows published and not yet confirmed at once; new rows wait beyond "
            "it. Not below window."),
        config_section("telemetry", false,
                       "The telemetry lane (QoS 0, process outpost-telemetry); absent: no lane."),
        config_key("telemetry.client_id", T::kString, telemetry.client_id, "",
                   "The lane's client id; \"\" = outpost-<gateway_id>-telemetry."),
        config_key("telemetry.ring_capacity", T::kInteger, telemetry.ring_capacity, "messages",
                   "Messages the in-memory ring holds; a push on a full ring drops the oldest."),
        config_key("telemetry.max_payload_bytes", T::kInteger, telemetry.max_payload_bytes, "bytes",
                   "Largest payload accepted; bigger ones are dropped as oversize."),
        config_key(
            "telemetry.coalesce", T::kBoolean, telemetry.coalesce, "",
            "Keep at most one waiting message per key: a newer value replaces the waiting one."),
        config_key("telemetry.max_send_rate", T::kInteger, telemetry.max_send_rate, "messages/s",
                   "Publishes per second at most (token bucket); 0: no cap."),
        config_key(
            "telemetry.datagram_socket", T::kString, telemetry.datagram_socket, "",
            "AF_UNIX datagram socket for \"<key>\\n<payload>\" from firmware; \"\" = none. Not "
            "ingest.socket."),
        config_key("telemetry.scheduling", T::kString,
                   telemetry_scheduling_name(telemetry.scheduling), "",
                   "CPU priority of the telemetry process: \"nice\" (nice 10) or \"idle\" "
                   "(SCHED_IDLE, runs only when nothing else wants the CPU)."),
        config_section("ingest", false, "The alarm socket firmware raises alarms on."),
        config_key("ingest.socket", T::kString, ingest.socket_path, "",
                   "The AF_UNIX stream socket (firmware_glue/ingest-protocol.md); \"\" = none."),
        config_key("ingest.socket_mode", T::kString, octal(ingest.socket_mode), "octal mode",
                   "Permissions of the socket, an octal string; world-writable modes are refused."),
        config_key("ingest.max_clients", T::kInteger, ingest.max_clients, "connections",
                   "Connections served at once; one more is answered busy and closed."),
        config_key("ingest.max_request_bytes", T::kInteger, ingest.max_request_bytes, "bytes",
                   "Longest request line; a longer one is answered request_too_large."),
        config_key("ingest.idle_timeout_ms", T::kInteger, ingest.idle_timeout.count(), "ms",
                   "A connection without a complete request for this long is told timeout and "
                   "closed."),
        config_section("metrics", false, "Prometheus: an HTTP endpoint and/or a textfile."),
        config_key(
            "metrics.listen", T::kString, metrics.listen, "",
            "host:port of GET /metrics, e.g. \"127.0.0.1:9464\"; \"\" = off; port 0 picks one."),
        config_key("metrics.allow_non_loopback", T::kBoolean, metrics.allow_non_loopback, "",
                   "Allow listen on an address that is not loopback (the endpoint has no "
                   "authentication)."),
        config_key("metrics.textfile", T::kString, metrics.textfile, "",
                   "A node-exporter textfile (*.prom), replaced atomically; \"\" = off."),
        config_key("metrics.textfile_interval_ms", T::kInteger, metrics.textfile_interval.count(),
                   "ms", "How often the textfile is rewritten."),
        config_section("logging", false, "Log lines, on stderr."),
        config_key("logging.level", T::kString, log_level_name(shown.logging.level), "",
                   "The lowest level written: \"error\", \"warn\", \"info\" or \"debug\"."),
        config_key("logging.syslog", T::kBoolean, shown.logging.syslog, "",
                   "Also to syslog(3), facility daemon."),
        config_key("status_interval_ms", T::kInteger, shown.status_interval.count(), "ms",
                   "How often STATUS= goes to systemd and a status line to the log (debug)."),
    };
    keys.insert(keys.end(), rest.begin(), rest.end());
    return keys;
}

}  // namespace outpost::daemon
