// One consistent-enough look at every part the daemon runs, taken for a
// metrics scrape, the textfile, `outpostctl status --socket` and STATUS=.
// The publisher's figures are read before the store's, so the store figures
// include every row the publisher's SENT and DEAD counters name.
#ifndef OUTPOST_DAEMON_SNAPSHOT_H
#define OUTPOST_DAEMON_SNAPSHOT_H

#include <cstdint>
#include <optional>
#include <string>

#include "ingest/ingest_server.h"
#include "outpost/publisher.h"
#include "outpost/store.h"
#include "outpost/telemetry.h"

namespace outpost::daemon {

struct DaemonSnapshot {
    std::string gateway_id;
    int64_t uptime_ms = 0;
    std::optional<StoreStats> store;  // nullopt when the figures could not be read
    std::string store_error;          // why, then
    PublisherStatus publisher;
    std::optional<TelemetryStats> telemetry;    // nullopt: lane off
    uint64_t telemetry_restarts = 0;            // of the telemetry process
    int64_t telemetry_pid = -1;                 // the telemetry process; -1 between lives
    std::optional<ingest::ServerStats> ingest;  // nullopt: socket off
    // broker.tls.verify_server is false on an ssl:// broker: the publisher
    // and the telemetry lane accept any certificate.
    bool tls_verify_disabled = false;
};

// A PublisherStatus latency (microseconds, -1 for none) in the whole
// milliseconds the status document and the metrics give, -1 kept.
constexpr int64_t whole_ms(int64_t microseconds) {
    return microseconds < 0 ? -1 : microseconds / 1000;
}

// The JSON `outpostctl status --socket` renders: backlog, oldest pending
// age, in flight, dead, connection, lease, latency, telemetry drops, ingest.
nlohmann::json status_json(const DaemonSnapshot& snapshot);

// One line for systemd's STATUS= and the log.
std::string status_line(const DaemonSnapshot& snapshot);

}  // namespace outpost::daemon

#endif  // OUTPOST_DAEMON_SNAPSHOT_H
