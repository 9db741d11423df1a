// Removing SENT rows: by retention age (maintenance) or oldest first (quota).
#ifndef OUTPOST_STORE_PURGE_H
#define OUTPOST_STORE_PURGE_H

#include <chrono>
#include <cstdint>
#include <string>

#include "outpost/status.h"
#include "store/store_core.h"

namespace outpost::store {

struct PurgeRule {
    // Only rows whose retention has run out (see StoreOptions::sent_retention);
    // otherwise the oldest SENT rows regardless of age.
    bool expired_only = true;
    std::string boot_id;
    int64_t uptime_ms = 0;
    std::chrono::milliseconds retention{0};
    // Receipts on (StoreCore::purge_confirmed_only): only confirmed SENT rows.
    bool confirmed_only = false;
};

// Deletes up to `limit` SENT outbox rows matching `rule`, oldest first, with
// their alarm records, inside the caller's open transaction. Never deletes
// the row with the highest id: SQLite would reuse that rowid, and the
// publisher's cursor relies on ids only growing. Keeps device_seq up to date
// so sequence numbers never restart. Returns the number of rows deleted.
// The deletions are recorded in `change` (outbox_summary.h, S2).
Result<int64_t> purge_sent_rows(StoreCore& core, const PurgeRule& rule, int64_t limit,
                                OutboxChange& change);

// The statement that raises each device's device_seq to the highest seq among
// `rows` (an "outbox WHERE ..." source), run before those rows are deleted:
// a device's highest seq may sit in a deleted row, and without it the next
// open would hand that seq out again. Every outbox deletion runs it first.
std::string remember_seqs_sql(const std::string& rows);

}  // namespace outpost::store

#endif  // OUTPOST_STORE_PURGE_H
