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
    auto counts = Stmt::prepare(*reader,
                                "SELECT state, count(*), min(id) FROM outbox GROUP BY state");
    if (!counts) return counts.status();
    for (;;) {
        auto step = counts->step("counting outbox rows");
        if (!step) return step.status();
        if (*step == Stmt::Step::kDone) break;
        int64_t count = counts->column_int(1);
        switch (static_cast<OutboxState>(counts->column_int(0))) {
            case OutboxState::kPending:
                stats.pending = count;
                stats.oldest_pending_id = counts->column_int(2);
                break;
            case OutboxState::kSent:
                stats.sent = count;
                break;
            case OutboxState::kDead:
                stats.dead = count;
                break;
        }
    }
    auto pages = reader->query_int("PRAGMA page_count", "reading page count");
    auto free_pages = reader->query_int("PRAGMA freelist_count", "reading free pages");
    if (pages && free_pages) {
        stats.database_bytes = static_cast<uint64_t>(*pages - *free_pages) *
                               static_cast<uint64_t>(page_size_);
    }
    return stats;
}

}  // namespace outpost::store
