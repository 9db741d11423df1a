#include "daemon/prometheus.h"

#include "common/prometheus_text.h"

namespace outpost::daemon {
namespace {

void render_publisher(PrometheusText& out, const PublisherStatus& publisher) {
    out.gauge("outpost_broker_connected", "1 while the alarm publisher is connected to the broker.",
              publisher.connected ? 1 : 0);
    out.counter("outpost_broker_reconnects_total", "Successful broker connects after the first.",
                publisher.reconnects);
    out.counter("outpost_broker_connect_failures_total", "Failed broker connection attempts.",
                publisher.connect_failures);
    out.gauge("outpost_lease_held", "1 while this daemon holds the outbox lease.",
              publisher.lease_held ? 1 : 0);
    out.gauge("outpost_lease_epoch", "Fencing epoch of the lease this daemon holds (0: none yet).",
              publisher.lease_epoch);
    out.gauge("outpost_in_flight", "Alarm events published and awaiting their PUBACK.",
              publisher.in_flight);
    out.gauge("outpost_retrying", "Refused alarm events waiting for their retry backoff.",
              publisher.retrying);
    out.seconds_gauge("outpost_oldest_pending_age_seconds",
                      "Age of the oldest pending alarm event (absent when none or unknown).",
                      publisher.oldest_pending_age_ms);
    out.counter("outpost_events_published_total",
                "Alarm publishes handed to the MQTT client, repeats included.",
                publisher.published);
    out.counter("outpost_events_sent_total", "Alarm events marked SENT after a successful PUBACK.",
                publisher.sent);
    // Receipts; zero (the age absent) while they are off.
    out.counter("outpost_events_confirmed_total",
                "Alarm events a bridge receipt confirmed stored in RocketMQ.", publisher.confirmed);
    out.gauge("outpost_awaiting_receipt", "SENT alarm events without a receipt yet.",
              publisher.awaiting_receipt);
    out.counter("outpost_events_republished_total",
                "SENT alarm events published again because no receipt came in time.",
                publisher.republished);
    out.seconds_gauge("outpost_oldest_unconfirmed_age_seconds",
                      "Age of the oldest SENT alarm event awaiting its receipt (absent when none).",
                      publisher.oldest_unconfirmed_age_ms);
    out.counter("outpost_receipts_ignored_total",
                "Receipt eventIds unknown, already confirmed or not SENT.",
                publisher.receipts_ignored);
    out.counter("outpost_receipts_malformed_total", "Receipt messages that did not parse.",
                publisher.receipts_malformed);
    out.counter("outpost_receipts_newer_total",
                "Receipt messages of a newer format version than this daemon reads, ignored.",
                publisher.receipts_newer);
    out.counter("outpost_events_rejected_total",
                "Alarm events a bridge quarantined and rejected in a receipt (now DEAD).",
                publisher.rejected);
    out.counter("outpost_events_refused_total",
                "Message-level refusals (PUBACK reason >= 0x80, too large).", publisher.refused);
    out.counter("outpost_events_dead_total", "Alarm events this daemon moved to DEAD.",
                publisher.dead);
    out.seconds_gauge("outpost_commit_to_ack_p50_seconds",
                      "Median time from an alarm's commit to its PUBACK (recent rows).",
                      whole_ms(publisher.commit_to_ack_p50_us));
    out.seconds_gauge("outpost_commit_to_ack_p99_seconds",
                      "99th percentile time from an alarm's commit to its PUBACK (recent rows).",
                      whole_ms(publisher.commit_to_ack_p99_us));
    out.counter("outpost_publisher_loop_rounds_total",
                "Rounds of the publisher loop (the watchdog's heartbeat).",
                publisher.loop_heartbeat);
}

void render_store(PrometheusText& out, const StoreStats& store) {
    out.gauge("outpost_backlog", "Pending alarm events in the outbox (not yet SENT).",
              store.pending);
    out.gauge("outpost_dead", "DEAD alarm events awaiting an operator.", store.dead);
    out.gauge("outpost_store_bytes", "Database pages in use, in bytes.", store.database_bytes);
    out.gauge("outpost_store_quota_bytes", "The database's byte budget.", store.quota_bytes);
    out.counter("outpost_store_commits_total", "Write transactions committed.", store.commits);
    out.counter("outpost_events_recorded_total", "Alarm events committed to the outbox.",
                store.events_recorded);
    out.counter("outpost_store_wal_bytes_total", "Bytes of WAL frames appended (flash wear).",
                store.wal_bytes);
    out.counter("outpost_store_purged_rows_total", "SENT rows purged by retention or quota.",
                store.purged_rows);
}

void render_telemetry(PrometheusText& out, const TelemetryStats& telemetry) {
    out.gauge("outpost_telemetry_connected", "1 while the telemetry lane is connected.",
              telemetry.connected ? 1 : 0);
    out.counter("outpost_telemetry_offered_total", "Telemetry messages offered to the lane.",
                telemetry.offered);
    out.counter("outpost_telemetry_published_total", "Telemetry messages sent at QoS 0.",
                telemetry.published);
    out.counter("outpost_telemetry_coalesced_total",
                "Telemetry messages replaced by a newer value of their key.", telemetry.coalesced);
    out.family("outpost_telemetry_dropped_total", "counter",
               "Telemetry messages dropped, by reason.");
    out.sample("outpost_telemetry_dropped_total", "{reason=\"ring_full\"}",
               telemetry.dropped_ring_full);
    out.sample("outpost_telemetry_dropped_total", "{reason=\"oversize\"}",
               telemetry.dropped_oversize);
    out.sample("outpost_telemetry_dropped_total", "{reason=\"invalid\"}",
               telemetry.dropped_invalid);
    out.sample("outpost_telemetry_dropped_total", "{reason=\"disconnected\"}",
               telemetry.dropped_disconnected);
    out.counter("outpost_telemetry_datagrams_total", "Datagrams received on the telemetry socket.",
                telemetry.datagrams);
    out.gauge("outpost_telemetry_ring_depth", "Telemetry messages waiting in the ring.",
              telemetry.ring_depth);
    out.counter("outpost_telemetry_reconnects_total", "Telemetry connects after the first.",
                telemetry.reconnects);
}

void render_ingest(PrometheusText& out, const ingest::ServerStats& ingest) {
    out.counter("outpost_ingest_connections_total", "Connections accepted on the alarm socket.",
                ingest.connections);
    out.counter("outpost_ingest_requests_total", "Requests answered on the alarm socket.",
                ingest.requests);
    out.counter("outpost_ingest_alarms_recorded_total",
                "Alarms recorded through the socket (duplicates included).",
                ingest.alarms_recorded);
    out.counter("outpost_ingest_errors_total", "Requests answered with an error.", ingest.errors);
    out.gauge("outpost_ingest_clients", "Connections open on the alarm socket now.",
              ingest.clients);
}

}  // namespace

std::string render_prometheus(const DaemonSnapshot& snapshot) {
    PrometheusText out;
    out.gauge("outpost_uptime_seconds", "Seconds since outpostd started.",
              snapshot.uptime_ms / 1000);
    out.gauge("outpost_tls_verify_disabled",
              "1 when broker.tls.verify_server is false: the broker's certificate is not checked.",
              snapshot.tls_verify_disabled ? 1 : 0);
    out.gauge("outpost_store_readable", "1 when the store's figures could be read for this scrape.",
              snapshot.store ? 1 : 0);
    if (snapshot.store) render_store(out, *snapshot.store);
    render_publisher(out, snapshot.publisher);
    if (snapshot.telemetry) {
        render_telemetry(out, *snapshot.telemetry);
        out.counter("outpost_telemetry_process_restarts_total",
                    "Times outpostd started the telemetry process again after it ended.",
                    snapshot.telemetry_restarts);
    }
    if (snapshot.ingest) render_ingest(out, *snapshot.ingest);
    return out.text();
}

}  // namespace outpost::daemon
