// The byte quota. Checked by the batch leader before any op runs, so a full
// store refuses new events cleanly instead of failing mid-transaction.
//
// Q1. used_bytes_bound_, when not -1, is at least the bytes the database
//     uses (pages less free pages): it is set from an exact count inside a
//     batch, and every later commit of this writer adds the page size for
//     each WAL frame it appended (a commit of F frames adds at most F pages;
//     freed pages only make the bound looser). It is forgotten (-1) when
//     another connection wrote (data_version moved), when the writer is
//     reopened, when a batch fails (a count inside it may have seen a purge
//     that rolled back) and before a purge. So "bound + growth <= quota" implies the
//     exact check would pass too, and the exact count (two PRAGMAs, and
//     page_count is re-prepared by SQLite on every run: ~10,000
//     instructions, a sixth of the raw two-insert transaction) runs only
//     when the bound comes within `growth` of the quota.
#include "store/purge.h"
#include "store/store_core.h"

namespace outpost::store {
namespace {

// One integer from a cached PRAGMA on the writer: this runs in every batch,
// and preparing the two statements anew cost more than the two inserts of a
// single alarm (bench/store_bench, callgrind).
Result<int64_t> pragma_int(StoreCore& core, const char* sql, const char* what) {
    auto stmt = core.cached(sql);
    if (!stmt) return stmt.status();
    auto step = (*stmt)->step(what);
    if (!step) return step.status();
    if (*step != Stmt::Step::kRow) {
        return Status::error(StatusCode::kInternal, std::string(sql) + " returned no row");
    }
    const int64_t value = (*stmt)->column_int(0);
    (*stmt)->reset();
    return value;
}

}  // namespace

Status StoreCore::make_room(uint64_t growth, int64_t uptime_ms, OutboxChange& change) {
    PurgeRule oldest_first;
    oldest_first.expired_only = false;
    oldest_first.boot_id = boot_id_;
    oldest_first.uptime_ms = uptime_ms;
    oldest_first.confirmed_only = purge_confirmed_only();
    for (;;) {
        if (used_bytes_bound_ >= 0 &&
            static_cast<uint64_t>(used_bytes_bound_) + growth <= options_.quota_bytes) {
            return Status::ok();  // Q1
        }
        auto pages = pragma_int(*this, "PRAGMA page_count", "reading page count");
        if (!pages) return pages.status();
        auto free_pages = pragma_int(*this, "PRAGMA freelist_count", "reading free pages");
        if (!free_pages) return free_pages.status();
        uint64_t used = static_cast<uint64_t>(*pages - *free_pages) * static_cast<uint64_t>(page_size_);
        used_bytes_bound_ = static_cast<int64_t>(used);
        if (used + growth <= options_.quota_bytes) return Status::ok();
        used_bytes_bound_ = -1;  // the purge below frees pages: count again
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
