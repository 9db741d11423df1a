// outpostd: the gateway daemon. Runs the store, the alarm publisher, the
// telemetry lane, the alarm ingestion socket and the metrics endpoint from
// one JSON configuration. See --help.
#include <malloc.h>
#include <sqlite3.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "common/child_supervisor.h"
#include "common/service_arguments.h"
#include "common/service_log.h"
#include "daemon/config.h"
#include "daemon/config_keys.h"
#include "daemon/run.h"

namespace {

using namespace outpost::daemon;

const char* const kHelpUsage = R"(usage: outpostd --config FILE [--check-config]
       outpostd --help | --version

The Outpost gateway daemon. Opens the alarm store (SQLite, WAL,
synchronous=FULL), forwards its outbox over MQTT v5 QoS 1 (a row is SENT
only after its PUBACK), records alarms that firmware sends to a local socket
(the answer carries the eventId only after the durable commit), carries
telemetry at QoS 0 on a separate connection from a bounded in-memory ring,
and exposes Prometheus metrics.

options:
  --config FILE    JSON configuration (below)
  --check-config   validate FILE, print a summary, exit 0 (valid) or 2
  --version        print the version
  --help           this text

configuration (defaults shown; "*" marks a required key, shown with an example; an absent
object keeps its defaults; unknown fields are errors; docs/reference/outpostd.md has each key
in full):
)";

// After the configuration's skeleton (daemon/config_keys.h).
const char* const kHelpNotes = R"(
The broker settings also serve the telemetry lane (with its own client id).
The lane runs in its own process, outpost-telemetry from outpostd's
directory, at nice 10 (its own MQTT I/O threads: none shared with alarms);
outpostd restarts it with backoff (publisher.reconnect_*) when it dies.

systemd: with Type=notify, READY=1 is sent once the store is open and the
sockets listen; STATUS= every status_interval_ms; STOPPING=1 at shutdown.
With WatchdogSec=, WATCHDOG=1 goes out every WatchdogSec/2 but only while
the publisher's loop keeps going round, so a hung publisher gets the daemon
restarted. Keep WatchdogSec above 2 x broker.connect_timeout_ms (a connect
attempt holds the loop). See outpostd.service (firmware_glue/systemd/).

logging: lines on stderr; under journald ($JOURNAL_STREAM) prefixed with the
syslog priority "<N>"; with logging.syslog also to syslog(3).

metrics: GET /metrics (Prometheus text format): outpost_backlog,
outpost_oldest_pending_age_seconds, outpost_in_flight, outpost_dead,
outpost_events_{sent,refused,dead,published,recorded}_total,
outpost_broker_connected, outpost_broker_reconnects_total,
outpost_events_{confirmed,republished}_total, outpost_awaiting_receipt,
outpost_oldest_unconfirmed_age_seconds,
outpost_receipts_{ignored,malformed,newer}_total, outpost_events_rejected_total,
outpost_lease_epoch, outpost_commit_to_ack_p99_seconds,
outpost_telemetry_{offered,published}_total,
outpost_telemetry_dropped_total{reason=...}, outpost_ingest_*_total,
outpost_store_bytes, ...

signals: SIGTERM/SIGINT close the alarm socket, wait up to drain_timeout_ms
for the PUBACKs in flight (rows without one stay pending and go out again
after the restart), stop telemetry, close the store and exit 0.

exit status: 0 stopped by a signal, 1 a part could not start or failed,
2 usage or configuration error.
)";

void print_summary(const DaemonConfig& config) {
    std::printf("configuration OK\n  gateway %s, database %s (quota %llu bytes)\n",
                config.store.gateway_id.c_str(), config.database_path.c_str(),
                static_cast<unsigned long long>(config.store.quota_bytes));
    std::printf("  broker %s, window %d, drain %lld ms\n", config.publisher.endpoint.uri.c_str(),
                config.publisher.max_in_flight,
                static_cast<long long>(config.drain_timeout.count()));
    std::printf("  alarm socket %s\n",
                config.ingest.socket_path.empty() ? "off" : config.ingest.socket_path.c_str());
    if (config.telemetry.enabled) {
        std::printf("  telemetry ring %zu%s, datagrams %s\n", config.telemetry.ring_capacity,
                    config.telemetry.coalesce ? " (coalescing)" : "",
                    config.telemetry.datagram_socket.empty()
                        ? "off"
                        : config.telemetry.datagram_socket.c_str());
    } else {
        std::printf("  telemetry off\n");
    }
    std::printf(
        "  metrics %s%s%s\n", config.metrics.listen.empty() ? "" : "http://",
        config.metrics.listen.empty() ? "no endpoint"
                                      : (config.metrics.listen + "/metrics").c_str(),
        config.metrics.textfile.empty() ? "" : (", textfile " + config.metrics.textfile).c_str());
    std::printf("  log level %s%s\n", log_level_name(config.logging.level),
                config.logging.syslog ? ", also syslog" : "");
}

// glibc gives every thread that allocates its own malloc arena (up to eight
// per core), and each arena keeps the pages it once used. outpostd's threads
// (publisher, paho's send and receive, telemetry, alarm socket, metrics)
// allocate little and rarely at once, so their arenas were mostly free
// pages: one arena measured 3.5 MB less resident memory at 500 alarms/s with
// telemetry on a full store (bench/footprint), and contention on its lock
// does not show at that rate. Set before any thread starts. Other C
// libraries (musl) have one allocator and no such setting.
void use_one_malloc_arena() {
#if defined(__GLIBC__) && defined(M_ARENA_MAX)
    mallopt(M_ARENA_MAX, 1);
#endif
}

// glibc's per-thread cache (tcache) keeps up to 7 freed chunks of each size
// up to 1 KiB for the thread that freed them: they are neither merged with
// their neighbours nor reused by other threads. In outpostd one thread
// allocates what another frees (requests, rows, envelopes, paho's messages),
// so those caches pinned about 0.25 MB of the heap while a full store
// drained (bench/footprint; docs/DESIGN.md, "Memory", has the figures).
// Only GLIBC_TUNABLES turns them off, and the dynamic loader reads it before
// main(): so outpostd runs itself again, once, with
// glibc.malloc.tcache_count=0 added (same pid, same arguments; its
// outpost-telemetry inherits it). A GLIBC_TUNABLES that names tcache_count
// already is the operator's choice and is kept; if the exec fails, outpostd
// runs on with the caches.
void leave_out_thread_malloc_caches(char** argv) {
#if defined(__GLIBC__)
    constexpr const char* kSetting = "glibc.malloc.tcache_count=0";
    const char* const tunables = std::getenv("GLIBC_TUNABLES");
    const std::string before = tunables != nullptr ? tunables : "";
    if (before.find("glibc.malloc.tcache_count") != std::string::npos) return;
    const std::string after = before.empty() ? kSetting : before + ":" + kSetting;
    if (::setenv("GLIBC_TUNABLES", after.c_str(), 1) != 0) return;
    ::execv("/proc/self/exe", argv);
    if (tunables != nullptr) {
        ::setenv("GLIBC_TUNABLES", before.c_str(), 1);
    } else {
        ::unsetenv("GLIBC_TUNABLES");
    }
#else
    (void)argv;
#endif
}

// Executing /proc/self/exe names the process "exe" (the kernel takes a
// process's name, /proc/PID/comm, from the last part of the path it was
// executed by): pgrep, pidof, top and the journal would not find outpostd
// after leave_out_thread_malloc_caches. The name is given back from the
// file /proc/self/exe points to, as executing that path would have named
// it ("outpostd", or whatever the file is called; 15 bytes at most). Safe
// to call in any process: a name is only ever set from the file's own.
void name_process_after_its_file() {
#if defined(__linux__)
    std::string file = outpost::own_program();
    const std::string deleted = " (deleted)";  // replaced on disk since it started
    if (file.size() > deleted.size() &&
        file.compare(file.size() - deleted.size(), deleted.size(), deleted) == 0) {
        file.resize(file.size() - deleted.size());
    }
    const std::string name = file.substr(file.rfind('/') + 1).substr(0, 15);
    if (!name.empty()) ::prctl(PR_SET_NAME, name.c_str(), 0, 0, 0);
#endif
}

// Two SQLite settings that keep outpostd's resident set small, both
// process-wide (sqlite3_config is not thread-safe), so the program's call,
// made here before SQLite initialises and before any thread starts; the
// library never makes it (firmware that links liboutpost owns its
// process's SQLite settings):
//  - no bulk page allocation: SQLite's page cache starts each connection
//    with one allocation of SQLITE_DEFAULT_PCACHE_INITSZ pages (20 in
//    Debian's build, about 88 KiB) whether the connection reads that many
//    pages or not; without it a connection allocates its pages as it reads
//    them, up to the same cache_size (bench/footprint: 0.2-0.3 MB less
//    resident for outpostd's three connections);
//  - small allocations: a statement that sorts (the quota purge orders its
//    victims and groups them by device in temporary b-trees) can take one
//    block for its sorter, doubled up to the connection's cache size
//    (256 KiB on the writer); with SQLITE_CONFIG_SMALL_MALLOC SQLite
//    avoids large allocations where it can and sorts record by record
//    (bench/footprint, alternating runs while a full store drains: peak
//    median 10.09 -> 9.95 MB).
void keep_sqlite_allocations_small() {
    sqlite3_config(SQLITE_CONFIG_PAGECACHE, nullptr, 0, 0);
    sqlite3_config(SQLITE_CONFIG_SMALL_MALLOC, 1);
}

}  // namespace

int main(int argc, char** argv) {
    int exit_code = kExitOk;
    const std::string help = std::string(kHelpUsage) +
                             outpost::render_config_skeleton(daemon_config_keys()) + kHelpNotes;
    const std::optional<outpost::ServiceArguments> arguments = outpost::parse_service_arguments(
        argc, argv, "outpostd", help.c_str(), OUTPOST_VERSION, &exit_code);
    if (!arguments) return exit_code;
    outpost::Result<DaemonConfig> config = load_daemon_config(arguments->config_path);
    if (!config.is_ok()) {
        std::fprintf(stderr, "outpostd: %s\n", config.status().message().c_str());
        return kExitUsage;
    }
    if (arguments->check_only) {
        print_summary(*config);
        return kExitOk;
    }
    leave_out_thread_malloc_caches(argv);
    name_process_after_its_file();
    use_one_malloc_arena();
    keep_sqlite_allocations_small();
    configure_log("outpostd", config->logging.level, config->logging.syslog);
    return run_daemon(*config);
}
