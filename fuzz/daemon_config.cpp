// outpostd's configuration parser (daemon/config.h). Properties: a
// configuration it accepts re-validates: written back as JSON (every field,
// see written()) it parses again to the same configuration; what decides
// acceptance is the JSON data, not its layout; and what the store and the
// publisher rely on holds (an identifier for the gateway, a quota the store
// accepts, ordered backoff bounds, distinct sockets).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "common/text_checks.h"
#include "config_round_trip.h"
#include "daemon/config.h"
#include "fuzz_check.h"

namespace {

using namespace outpost::daemon;
using nlohmann::json;

std::string octal(unsigned mode) {
    char text[8];
    std::snprintf(text, sizeof text, "%04o", mode);
    return text;
}

json written(const DaemonConfig& c) {
    const outpost::StoreOptions& s = c.store;
    const outpost::PublisherOptions& p = c.publisher;
    json document = {
        {"gateway_id", s.gateway_id},
        {"database",
         {{"path", c.database_path},
          {"quota_bytes", s.quota_bytes},
          {"sent_retention_s",
           std::chrono::duration_cast<std::chrono::seconds>(s.sent_retention).count()},
          {"purge_batch_rows", s.purge_batch_rows},
          {"max_batch", s.max_batch},
          {"max_event_bytes", s.max_event_bytes},
          {"busy_timeout_ms", s.busy_timeout.count()},
          {"corruption_policy",
           s.corruption_policy == outpost::CorruptionPolicy::kRefuse ? "refuse" : "move_aside"},
          {"check_on_open", s.check_on_open}}},
        {"broker",
         {{"uri", p.endpoint.uri},
          {"client_id", p.endpoint.client_id},
          {"username", p.endpoint.username},
          {"password", p.endpoint.password},
          {"allow_plaintext_credentials", c.allow_plaintext_credentials},
          {"keepalive_s", p.endpoint.keepalive.count()},
          {"connect_timeout_ms", p.endpoint.connect_timeout.count()}}},
        {"publisher",
         {{"window", p.max_in_flight},
          {"max_attempts", p.max_attempts},
          {"retry_initial_ms", p.retry_initial.count()},
          {"retry_max_ms", p.retry_max.count()},
          {"reconnect_initial_ms", p.endpoint.reconnect_initial.count()},
          {"reconnect_max_ms", p.endpoint.reconnect_max.count()},
          {"lease_retry_ms", p.lease_retry.count()},
          {"poll_interval_ms", p.poll_interval.count()},
          {"rescan_interval_ms", p.rescan_interval.count()},
          {"purge_interval_ms", p.purge_interval.count()},
          {"mark_batch", p.mark_batch},
          {"mark_delay_ms", p.mark_delay.count()},
          {"drain_timeout_ms", c.drain_timeout.count()}}},
        {"ingest",
         {{"socket", c.ingest.socket_path},
          {"socket_mode", octal(c.ingest.socket_mode)},
          {"max_clients", c.ingest.max_clients},
          {"max_request_bytes", c.ingest.max_request_bytes},
          {"idle_timeout_ms", c.ingest.idle_timeout.count()}}},
        {"metrics",
         {{"listen", c.metrics.listen},
          {"allow_non_loopback", c.metrics.allow_non_loopback},
          {"textfile", c.metrics.textfile},
          {"textfile_interval_ms", c.metrics.textfile_interval.count()}}},
        {"logging", {{"level", log_level_name(c.logging.level)}, {"syslog", c.logging.syslog}}},
        {"status_interval_ms", c.status_interval.count()},
    };
    // TLS settings belong to an ssl:// URI only: next to tcp:// they are a
    // configuration error.
    if (p.endpoint.uri.rfind("ssl://", 0) == 0) {
        document["broker"]["tls"] = {{"ca_file", p.endpoint.tls.ca_file},
                                     {"cert_file", p.endpoint.tls.cert_file},
                                     {"key_file", p.endpoint.tls.key_file},
                                     {"key_password", p.endpoint.tls.key_password},
                                     {"verify_server", p.endpoint.tls.verify_server}};
    }
    if (c.telemetry.enabled) {
        document["telemetry"] = {{"client_id", c.telemetry.client_id},
                                 {"ring_capacity", c.telemetry.ring_capacity},
                                 {"max_payload_bytes", c.telemetry.max_payload_bytes},
                                 {"coalesce", c.telemetry.coalesce},
                                 {"datagram_socket", c.telemetry.datagram_socket}};
    }
    return document;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::optional<DaemonConfig> config = accepted_config(
        std::string(reinterpret_cast<const char*>(data), size), &parse_daemon_config, written);
    if (!config) return 0;

    const DaemonConfig& c = *config;
    FUZZ_CHECK(outpost::is_valid_identifier(c.store.gateway_id), "the gateway id is an identifier");
    FUZZ_CHECK(!c.database_path.empty(), "the database has a path");
    FUZZ_CHECK(c.store.quota_bytes >= outpost::StoreOptions::kMinQuotaBytes,
               "the quota is one the store accepts");
    FUZZ_CHECK(c.publisher.retry_initial <= c.publisher.retry_max &&
                   c.publisher.endpoint.reconnect_initial <= c.publisher.endpoint.reconnect_max,
               "backoff bounds are ordered");
    FUZZ_CHECK(
        c.telemetry.datagram_socket.empty() || c.telemetry.datagram_socket != c.ingest.socket_path,
        "the telemetry and ingest sockets differ");
    return 0;
}
