// Store statistics: counters kept by the writer plus a read of the outbox
// through a separate connection (never queued behind writers).
#include "store/outbox.h"
#include "store/store_core.h"

namespace outpost::store {

void StoreCore::count_purged(int64_t rows) {
    std::lock_guard<std::mutex> lock(stats_mutex_);
    counters_.purged_rows += static_cast<uint64_t>(rows);
}

Result<StoreStats> StoreCore::stats() {
    StoreStats stats;
    {
        std::lock_guard<std::mutex> lock(stats_mutex_);
        stats = counters_;
    }
    stats.quota_bytes = options_.quota_bytes;
    auto reader = open_reader();
    if (!reader) return reader.status();
    // One pass with filtered counts, not GROUP BY state: the outbox has no
    // index on state, so GROUP BY sorts every row in a temporary b-tree (heap
    // up to the page cache's size, then temp files, at every status call: a
    // store at its quota holds about 200,000 rows); these counts need
    // constant memory.
    const std::string pending = sql_literal(OutboxState::kPending);
    auto counts = Stmt::prepare(
        *reader, "SELECT count(*) FILTER (WHERE state = " + pending +
                     "), min(id) FILTER (WHERE state = " + pending +
                     "), count(*) FILTER (WHERE state = " + sql_literal(OutboxState::kSent) +
                     "), count(*) FILTER (WHERE state = " + sql_literal(OutboxState::kDead) +
                     ") FROM outbox");
    if (!counts) return counts.status();
    auto step = counts->step("counting outbox rows");
    if (!step) return step.status();
    stats.pending = counts->column_int(0);
    stats.oldest_pending_id = counts->column_int(1);  // NULL (none pending) reads as 0
    stats.sent = counts->column_int(2);
    stats.dead = counts->column_int(3);
    auto pages = reader->query_int("PRAGMA page_count", "reading page count");
    auto free_pages = reader->query_int("PRAGMA freelist_count", "reading free pages");
    if (pages && free_pages) {
        stats.database_bytes = static_cast<uint64_t>(*pages - *free_pages) *
                               static_cast<uint64_t>(page_size_);
    }
    return stats;
}

}  // namespace outpost::store
