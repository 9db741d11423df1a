// How a store is opened. Every field has a default that suits a gateway.
#ifndef OUTPOST_STORE_OPTIONS_H
#define OUTPOST_STORE_OPTIONS_H

#include <chrono>
#include <cstdint>
#include <string>

#include "outpost/clock.h"

namespace outpost {

enum class CorruptionPolicy {
    // Opening a damaged database fails with kCorruption; nothing is touched.
    kRefuse,
    // The damaged files are renamed to "<path>.corrupt-<N>" (with their -wal),
    // a fresh database is created, and Store::open_report() says where the
    // old one went. Nothing is ever deleted.
    kMoveAside,
};

// Durability is not an option. The database always runs in WAL mode with
// synchronous=FULL: the only WAL setting under which every COMMIT that
// returned OK survives a power cut. Batching (group commit) is how Outpost
// pays for that, not a weaker sync mode.
struct StoreOptions {
    // The gateway this database belongs to; goes into every event envelope and
    // is checked against the database on reopen. Required: [A-Za-z0-9._-]{1,64}.
    std::string gateway_id;

    // Byte budget for the database file (pages in use). When a new event
    // would exceed it, SENT rows are purged first, oldest first; if that is
    // not enough the call fails with kStoreFull. Alarms are never evicted.
    // The WAL can add up to about 4 MiB on top while it awaits a checkpoint.
    // At least kMinQuotaBytes: below that the schema and one batch do not fit.
    uint64_t quota_bytes = 64ull * 1024 * 1024;
    static constexpr uint64_t kMinQuotaBytes = 256 * 1024;

    // SENT rows are kept this long (measured on CLOCK_BOOTTIME; a row sent in
    // an earlier boot counts from this boot's start) and then purged in
    // batches of purge_batch_rows.
    std::chrono::milliseconds sent_retention = std::chrono::hours(24);
    uint32_t purge_batch_rows = 256;

    // Group commit: at most this many requests share one transaction.
    uint32_t max_batch = 256;

    // Group commit: how long a transaction may wait, right after one that
    // several callers shared, for the callers that wrote in the last few
    // transactions and are about to write again (threads or connections
    // recording in a loop). Fewer, fuller transactions mean fewer flushes
    // and fewer bytes written to flash per alarm. The wait ends as soon as
    // they are back, and never lasts longer than four of the disk's recent
    // commits; it runs to its end only for a caller that stopped writing,
    // which is then no longer waited for. A lone caller, or callers each at
    // their own pace, never wait. Durability is the same either way; 0
    // turns the wait off.
    std::chrono::microseconds commit_wait = std::chrono::milliseconds(20);

    // Largest accepted envelope (JSON) in bytes; bigger events are refused
    // with kInvalidArgument before anything is written.
    uint32_t max_event_bytes = 64 * 1024;

    // How long a writer waits for another process's write lock.
    std::chrono::milliseconds busy_timeout = std::chrono::seconds(5);

    CorruptionPolicy corruption_policy = CorruptionPolicy::kRefuse;

    // Run PRAGMA quick_check at open (reads the whole file once). On by
    // default: a gateway opens its store once per boot.
    bool check_on_open = true;

    // With check_on_open: skip the check when this file already passed it
    // during the current boot (the boot id is kept in the store's meta
    // table, written once after a check that found nothing). outpostd sets
    // it, so a daemon restarted by systemd does not read a full store again;
    // damage that appears later in the boot is still found by the reads
    // that meet it (kCorruption) and by the check after an I/O error.
    bool check_once_per_boot = false;

    // Clock used for occurredAt, uptime and retention. Borrowed; must outlive
    // the store. nullptr means system_clock().
    const Clock* clock = nullptr;

    // Name of a registered sqlite3_vfs to use (the power-cut simulator in
    // tests); empty means SQLite's default.
    std::string vfs_name;
};

}  // namespace outpost

#endif  // OUTPOST_STORE_OPTIONS_H
