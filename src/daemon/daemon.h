// The parts a gateway runs, owned together: the Store, the alarm Publisher,
// the telemetry lane, the alarm ingestion socket and the metrics endpoint.
// Started in dependency order and stopped in reverse: nothing new comes in
// before the publisher drains, and the store closes last.
#ifndef OUTPOST_DAEMON_DAEMON_H
#define OUTPOST_DAEMON_DAEMON_H

#include <atomic>
#include <chrono>
#include <memory>

#include "daemon/config.h"
#include "common/metrics_server.h"
#include "daemon/snapshot.h"
#include "daemon/telemetry_supervisor.h"
#include "ingest/ingest_server.h"
#include "outpost/publisher.h"
#include "outpost/store.h"

namespace outpost::daemon {

class Daemon final {
  public:
    // Opens the store and starts every configured part. On error whatever
    // had started is stopped again; the Status names the part that failed.
    static Result<std::unique_ptr<Daemon>> start(const DaemonConfig& config);
    // Calls stop().
    ~Daemon();
    Daemon(const Daemon&) = delete;
    Daemon& operator=(const Daemon&) = delete;

    // Thread-safe (called by the main loop, the metrics thread and the
    // ingestion threads).
    DaemonSnapshot snapshot() const;
    // Rounds of the publisher loop so far (PublisherStatus::loop_heartbeat).
    uint64_t publisher_heartbeat() const;
    // Writes the node-exporter textfile if one is configured; logs failures.
    void write_textfile() const;

    // Stops the ingestion socket, drains the publisher's in-flight window
    // (up to drain_timeout), stops telemetry and metrics, writes a last
    // textfile, and closes the store. Logs what was left pending.
    // Idempotent.
    void stop();

  private:
    explicit Daemon(const DaemonConfig& config);
    Status start_parts();

    const DaemonConfig config_;
    const std::chrono::steady_clock::time_point started_;
    std::unique_ptr<Store> store_;
    std::unique_ptr<Publisher> publisher_;
    // The telemetry lane runs in its own process (telemetry_supervisor.h).
    std::unique_ptr<TelemetrySupervisor> telemetry_;
    std::unique_ptr<ingest::Server> ingest_;
    // What snapshot() may read of ingest_: set once it started, cleared
    // before it stops (its threads call snapshot() themselves).
    std::atomic<ingest::Server*> ingest_view_{nullptr};
    std::unique_ptr<MetricsServer> metrics_;
    bool stopped_ = false;  // main thread only
};

}  // namespace outpost::daemon

#endif  // OUTPOST_DAEMON_DAEMON_H
