// Store statistics: counters kept by the writer plus the outbox summary read
// through the store's status connection (never queued behind writers; one
// connection kept for the store's life, not one per call). The cost does
// not grow with the table: the summary row, a rowid range of at most a few
// hundred rows past it (outbox_summary.h, S2/S3) and the boot log.
#include "store/outbox.h"
#include "store/outbox_summary.h"
#include "store/store_core.h"

namespace outpost::store {

void StoreCore::count_purged(int64_t rows) {
    std::lock_guard<std::mutex> lock(stats_mutex_);
    counters_.purged_rows += static_cast<uint64_t>(rows);
}

namespace {

// The outbox figures of `stats`, read in the snapshot the caller holds open.
Status read_outbox_figures(Db& reader, const Clock& clock, StoreStats& stats) {
    OutboxSummary summary;
    auto tally = derive_tally(reader, &summary);
    if (!tally) return tally.status();
    stats.pending = tally->pending;
    stats.sent = tally->sent;
    stats.dead = tally->dead;
    stats.confirmed = tally->confirmed;
    stats.oldest_pending_id = tally->oldest_pending_id;
    stats.oldest_pending_age_ms = -1;
    if (tally->oldest_pending_id > 0) {
        auto age = pending_age_at_least_ms(reader, tally->oldest_pending_id, clock.boot_id(),
                                           clock.boot_ms());
        if (!age) return age.status();
        stats.oldest_pending_age_ms = *age;
    }
    return Status::ok();
}

// Reads the outbox figures and the database size into `stats` in one read
// transaction on `reader`, and always ends that transaction: the connection
// stays open between calls, and an open read would pin the WAL (no
// checkpoint could pass it).
Status read_store_figures(Db& reader, const Clock& clock, int64_t page_size, StoreStats& stats) {
    // One read snapshot: the summary and its tail must agree (S2).
    Status status = reader.exec("BEGIN", "reading store figures");
    if (!status) return status;
    status = read_outbox_figures(reader, clock, stats);
    if (status) {
        auto pages = reader.query_int("PRAGMA page_count", "reading page count");
        auto free_pages = reader.query_int("PRAGMA freelist_count", "reading free pages");
        if (pages && free_pages) {
            stats.database_bytes =
                static_cast<uint64_t>(*pages - *free_pages) * static_cast<uint64_t>(page_size);
        }
    }
    Status ended = reader.exec("COMMIT", "ending the read of store figures");
    return status ? ended : status;
}

}  // namespace

Result<StoreStats> StoreCore::stats() {
    StoreStats stats;
    {
        std::lock_guard<std::mutex> lock(stats_mutex_);
        stats = counters_;
    }
    stats.quota_bytes = options_.quota_bytes;
    std::lock_guard<std::mutex> lock(status_reader_mutex_);
    if (!status_reader_.is_open()) {
        auto reader = open_reader(Db::Role::kStatus);
        if (!reader) return reader.status();
        status_reader_ = std::move(*reader);
    }
    Status status = read_store_figures(status_reader_, *clock_, page_size_, stats);
    if (!status) {
        // Whatever failed (an I/O error, a damaged file, a read left open),
        // the next call starts from a fresh connection.
        status_reader_.close();
        return status;
    }
    return stats;
}

}  // namespace outpost::store
