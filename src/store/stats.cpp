// Store statistics: counters kept by the writer plus the outbox summary read
// through a separate connection (never queued behind writers). The cost does
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

}  // namespace

Result<StoreStats> StoreCore::stats() {
    StoreStats stats;
    {
        std::lock_guard<std::mutex> lock(stats_mutex_);
        stats = counters_;
    }
    stats.quota_bytes = options_.quota_bytes;
    auto reader = open_reader();
    if (!reader) return reader.status();
    // One read snapshot: the summary and its tail must agree (S2).
    Status status = reader->exec("BEGIN", "reading store figures");
    if (!status) return status;
    status = read_outbox_figures(*reader, *clock_, stats);
    if (!status) return status;  // closing the reader ends the read
    auto pages = reader->query_int("PRAGMA page_count", "reading page count");
    auto free_pages = reader->query_int("PRAGMA freelist_count", "reading free pages");
    if (pages && free_pages) {
        stats.database_bytes =
            static_cast<uint64_t>(*pages - *free_pages) * static_cast<uint64_t>(page_size_);
    }
    return stats;
}

}  // namespace outpost::store
