// The outbox's figures kept as the store changes, so that no periodic or
// per-command read is proportional to the table (schema/003_outbox_summary.sql).
//
// Invariants (the writer's in-memory tally, StoreCore::tally_, and the
// outbox_summary row; all state changes run in the writer's batches):
//  S1. After every COMMIT of this process, tally_ holds the exact number of
//      PENDING, SENT and DEAD rows, of the SENT ones how many are confirmed
//      (schema/004_receipts.sql), and the lowest PENDING id (0: none), as
//      of that commit. It changes only after COMMIT, from the batch's
//      OutboxChange (rolled back with an isolated op's savepoint), like the
//      sequence overlay (write_batch.cpp, I3).
//  S2. Every transaction that changes a row's state or deletes outbox rows
//      also rewrites outbox_summary with the exact figures and through_id =
//      max(outbox.id) at that commit. Hence every row with id > through_id
//      was inserted since and is PENDING: the true figures are the summary
//      plus a count of that tail (one rowid range, bounded by S3).
//  S3. An insert-only transaction rewrites the summary once kSummaryEveryRows
//      rows are past through_id or kSummaryEveryMs of boot clock passed, so
//      the tail stays short and each boot's last known uptime stays fresh.
//  S4. device_seq holds, for every device, a seq at least as high as any
//      row with id <= through_id carries (written with the summary).
//  S5. When another connection committed (PRAGMA data_version moved), the
//      writer re-derives tally_ from the summary and its tail inside its
//      write transaction, before any op runs.
// Readers (stats, other processes) never use tally_: they read the summary
// and its tail in one read transaction, which S2 makes exact.
#ifndef OUTPOST_STORE_OUTBOX_SUMMARY_H
#define OUTPOST_STORE_OUTBOX_SUMMARY_H

#include <cstdint>
#include <string>

#include "outpost/status.h"
#include "outpost/store.h"
#include "outpost/store_admin.h"
#include "store/sqlite_db.h"

namespace outpost::store {

// S3: an amortised summary page per this many alarms on the happy path.
constexpr int64_t kSummaryEveryRows = 256;
constexpr int64_t kSummaryEveryMs = 60'000;

// Rows per state and the lowest PENDING id (0 when none is pending).
struct OutboxTally {
    int64_t pending = 0;
    int64_t sent = 0;
    int64_t dead = 0;
    int64_t oldest_pending_id = 0;
    int64_t confirmed = 0;  // SENT rows a receipt confirmed (part of `sent`)
};

// The outbox_summary row.
struct OutboxSummary {
    OutboxTally tally;       // rows with id <= through_id
    int64_t through_id = 0;  // S2
    std::string boot_id;     // boot of the last write; empty before any
    int64_t uptime_ms = 0;   // boot clock at the last write
};

// What one batch did to the outbox, applied to the tally after COMMIT (S1).
struct OutboxChange {
    int64_t pending = 0;  // deltas
    int64_t sent = 0;
    int64_t dead = 0;
    int64_t confirmed = 0;
    int64_t lowest_new_pending = 0;  // lowest id that became PENDING; 0: none
    bool pending_left = false;       // some row stopped being PENDING
    bool rows_changed = false;       // S2: a state change or a delete
    // Records one row moving from `from` to `to`.
    void move(EventState from, EventState to, int64_t id);
    // Records `rows` rows inserted as PENDING, the lowest being `id`.
    void inserted(int64_t id);
    // Records `rows` rows in `state` deleted.
    void deleted(EventState state, int64_t rows);
    // Records a SENT row's receipt (rows != 0 counts as a state change, S2),
    // or, with a negative count, confirmed rows that were deleted or
    // replayed (their state change is recorded by deleted() or move()).
    void confirmations(int64_t rows);
};

Result<OutboxSummary> read_summary(Db& db);
Status write_summary(Db& db, const OutboxSummary& summary);

// The exact tally on `db` (S2): the summary plus the tail of PENDING rows.
// Run it inside one transaction (a read snapshot or the writer's batch).
// `summary` receives the row read.
Result<OutboxTally> derive_tally(Db& db, OutboxSummary* summary);

// The tally after `change`. `db` (inside the batch that made the change) is
// read only when the lowest PENDING row may have left: from the old lowest
// id upwards, so the cost is the rows that left since, not the table.
Result<OutboxTally> apply_change(Db& db, const OutboxTally& before, const OutboxChange& change);

// At least how long the row `id` has been waiting, by boot clocks only: the
// rest of the boot it was recorded in (boot_log), every later boot, and
// `uptime_ms` of `boot_id`, the running boot. -1 when the row is gone.
Result<int64_t> pending_age_at_least_ms(Db& db, int64_t id, const std::string& boot_id,
                                        int64_t uptime_ms);

// Once per boot, at the writer's open: if the summary names another boot,
// appends it to boot_log with its last known uptime and names this one.
Status note_boot(Db& db, const std::string& boot_id, int64_t uptime_ms);

}  // namespace outpost::store

#endif  // OUTPOST_STORE_OUTBOX_SUMMARY_H
