// The byte quota. Checked by the batch leader before any op runs, so a full
// store refuses new events cleanly instead of failing mid-transaction.
#include "store/purge.h"
#include "store/store_core.h"

namespace outpost::store {

Status StoreCore::make_room(uint64_t growth, int64_t uptime_ms, OutboxChange& change) {
    PurgeRule oldest_first;
    oldest_first.expired_only = false;
    oldest_first.boot_id = boot_id_;
    oldest_first.uptime_ms = uptime_ms;
    oldest_first.confirmed_only = purge_confirmed_only();
    for (;;) {
        auto pages = db_.query_int("PRAGMA page_count", "reading page count");
        if (!pages) return pages.status();
        auto free_pages = db_.query_int("PRAGMA freelist_count", "reading free pages");
        if (!free_pages) return free_pages.status();
        uint64_t used = static_cast<uint64_t>(*pages - *free_pages) * static_cast<uint64_t>(page_size_);
        if (used + growth <= options_.quota_bytes) return Status::ok();
        // SENT rows go first, oldest first, whatever their retention.
        auto purged = purge_sent_rows(*this, oldest_first, options_.purge_batch_rows, change);
        if (!purged) return purged.status();
        if (*purged == 0) {
            return Status::error(StatusCode::kStoreFull,
                                 path_ + ": quota of " + std::to_string(options_.quota_bytes) +
                                     " bytes reached (" + std::to_string(used) +
                                     " in use, nothing SENT (or, with receipts on, confirmed) left "
                                     "to purge); nothing was written. The backlog "
                                     "must drain (broker reachable?) or the quota grow");
        }
        count_purged(*purged);
    }
}

}  // namespace outpost::store
