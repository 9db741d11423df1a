#include "daemon/snapshot.h"

#include <unistd.h>

#include "ingest/status_document.h"

namespace outpost::daemon {

nlohmann::json status_json(const DaemonSnapshot& snapshot) {
    const PublisherStatus& publisher = snapshot.publisher;
    nlohmann::json status = {
        {"gateway_id", snapshot.gateway_id},
        {"pid", static_cast<int64_t>(getpid())},
        {"uptime_s", snapshot.uptime_ms / 1000},
        {"connected", publisher.connected},
        {"tls_verify_disabled", snapshot.tls_verify_disabled},
        {"lease",
         {{"held", publisher.lease_held},
          {"holder", publisher.lease_held ? "this outpostd" : "another process or none"},
          {"epoch", publisher.lease_epoch}}},
        {"backlog", snapshot.store ? snapshot.store->pending : publisher.backlog},
        {"oldest_pending_age_ms", publisher.oldest_pending_age_ms},
        {"in_flight", publisher.in_flight},
        {"retrying", publisher.retrying},
        {"window", publisher.window},
        {"publisher",
         {{"published", publisher.published},
          {"sent", publisher.sent},
          {"refused", publisher.refused},
          {"dead", publisher.dead},
          {"reconnects", publisher.reconnects},
          {"connect_failures", publisher.connect_failures},
          {"confirmed", publisher.confirmed},
          {"awaiting_receipt", publisher.awaiting_receipt},
          {"republished", publisher.republished},
          {"oldest_unconfirmed_age_ms", publisher.oldest_unconfirmed_age_ms},
          {"receipts_ignored", publisher.receipts_ignored},
          {"receipts_malformed", publisher.receipts_malformed},
          {"receipts_newer", publisher.receipts_newer},
          {"rejected", publisher.rejected},
          {"commit_to_ack_p50_ms", whole_ms(publisher.commit_to_ack_p50_us)},
          {"commit_to_ack_p99_ms", whole_ms(publisher.commit_to_ack_p99_us)},
          {"last_error", publisher.last_error}}},
    };
    if (snapshot.store) {
        status["dead"] = snapshot.store->dead;
        status["store"] = ingest::store_stats_json(*snapshot.store);
    } else {
        status["store"] = {{"error", snapshot.store_error}};
    }
    if (snapshot.telemetry) {
        const TelemetryStats& telemetry = *snapshot.telemetry;
        status["telemetry"] = {{"connected", telemetry.connected},
                               {"offered", telemetry.offered},
                               {"published", telemetry.published},
                               {"coalesced", telemetry.coalesced},
                               {"ring_depth", telemetry.ring_depth},
                               {"datagrams", telemetry.datagrams},
                               {"dropped",
                                {{"ring_full", telemetry.dropped_ring_full},
                                 {"oversize", telemetry.dropped_oversize},
                                 {"invalid", telemetry.dropped_invalid},
                                 {"disconnected", telemetry.dropped_disconnected}}},
                               {"last_error", telemetry.last_error},
                               {"process_pid", snapshot.telemetry_pid},
                               {"process_restarts", snapshot.telemetry_restarts}};
    } else {
        status["telemetry"] = "off";
    }
    if (snapshot.ingest) status["ingest"] = ingest::ingest_stats_json(*snapshot.ingest);
    return status;
}

std::string status_line(const DaemonSnapshot& snapshot) {
    const PublisherStatus& publisher = snapshot.publisher;
    std::string line = publisher.connected ? "connected" : "not connected";
    if (snapshot.tls_verify_disabled) line += " (broker certificate NOT verified)";
    if (!publisher.lease_held) line += ", waiting for the lease";
    const int64_t backlog = snapshot.store ? snapshot.store->pending : publisher.backlog;
    line += ", backlog " + std::to_string(backlog) + ", in flight " +
            std::to_string(publisher.in_flight) + ", sent " + std::to_string(publisher.sent);
    if (snapshot.store && snapshot.store->dead > 0) {
        line += ", dead " + std::to_string(snapshot.store->dead);
    }
    if (snapshot.telemetry) {
        const TelemetryStats& telemetry = *snapshot.telemetry;
        const uint64_t dropped = telemetry.dropped_ring_full + telemetry.dropped_oversize +
                                 telemetry.dropped_invalid + telemetry.dropped_disconnected;
        line += ", telemetry " + std::to_string(telemetry.published) + " sent/" +
                std::to_string(dropped) + " dropped";
    }
    return line;
}

}  // namespace outpost::daemon
