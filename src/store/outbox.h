// The outbox as the publisher and the operator tools see it.
//
// Fencing: every publisher write names the lease epoch it holds. The epoch
// is read and compared inside the same transaction as the write, so a
// publisher that lost its lease (a newer one acquired epoch+1) can never
// change a row again: its writes fail with kFenced.
#ifndef OUTPOST_STORE_OUTBOX_H
#define OUTPOST_STORE_OUTBOX_H

#include <cstdint>
#include <string>
#include <vector>

#include "outpost/status.h"
#include "outpost/store_admin.h"
#include "store/sqlite_db.h"
#include "store/store_core.h"

namespace outpost::store {

// An outbox row is what the public API calls an event record: one type, so
// the publisher and an operator read the same fields. EventState's values
// are the on-disk format of outbox.state (schema/001_initial.sql checks
// state IN (0, 1, 2)); SQL text names a state only through sql_literal().
using OutboxState = EventState;
using OutboxRow = EventRecord;

// The state as an SQL integer literal ("1" for kSent), for statement text.
std::string sql_literal(OutboxState state);

// Up to `limit` PENDING rows with id > `after_id`, in id order, read on
// `reader` (a connection from StoreCore::open_reader()).
Result<std::vector<OutboxRow>> fetch_pending(Db& reader, int64_t after_id, int limit);

// A SENT row a receipt has not confirmed yet: what the publisher needs to
// wait for its receipt (the envelope is read again only to republish).
struct UnconfirmedRow {
    int64_t id = 0;
    std::string event_id;
};

// Up to `limit` SENT rows a receipt has not confirmed yet, with id >
// `after_id`, in id order: ids and eventIds only, no envelope rebuilt. No
// index on state: this walks rows from `after_id`; the publisher calls it
// only when the store holds more such rows than it tracks (at a new lease,
// or after its bound was full).
Result<std::vector<UnconfirmedRow>> fetch_unconfirmed(Db& reader, int64_t after_id, int limit);

// The rowid of the event `event_id`, by bisection over the rowids (ids grow
// with them since schema 3), not a scan. kNotFound if absent.
Result<int64_t> find_event_id(Db& db, const std::string& event_id);

// One row by event id, any state. kNotFound if absent.
Result<OutboxRow> find_event(Db& reader, const std::string& event_id);

// Rows in `state`, oldest first, at most `limit`, with id > after_id.
Result<std::vector<OutboxRow>> list_events(Db& reader, OutboxState state, int64_t after_id,
                                           int limit);

// The lease row: the last holder and its epoch.
Result<LeaseRecord> read_lease(Db& reader);

// Increments the lease epoch and records the holder; returns the new epoch.
// Call once per lease acquisition, while holding the kernel lock.
Result<int64_t> acquire_epoch(StoreCore& core, const std::string& holder);

// Marks the PENDING rows among `ids` SENT, in one transaction (shared with
// other writers by group commit). Rows already SENT or DEAD are left alone.
// kFenced if `epoch` is no longer the lease's epoch: nothing is changed.
// Lazy (write_batch.cpp, I8): OK once committed; a power cut before the next
// synced commit may undo it, and the rows are then PENDING and published
// again.
Status mark_sent(StoreCore& core, const std::vector<int64_t>& ids, int64_t epoch);

// A row a negative receipt made DEAD: what an on_dead report needs.
struct RejectedRow {
    std::string event_id;
    std::string device_id;
    int64_t seq = 0;
    int64_t attempts = 0;  // after this failure
    std::string reason;    // as stored in last_error
};

// What one receipt did (confirm_events), id by id.
struct ConfirmCounts {
    std::vector<std::string> confirmed;          // SENT -> confirmed now
    std::vector<std::string> already_confirmed;  // a repeated receipt
    std::vector<std::string> not_sent;           // PENDING or DEAD: left alone
    std::vector<std::string> unknown;            // not in this store
    // Negative receipts: SENT and unconfirmed -> DEAD now.
    std::vector<RejectedRow> dead;
    // Negative receipts left alone: unknown, confirmed (RocketMQ holds the
    // event: a confirmation outranks a rejection), PENDING (replayed since)
    // or DEAD already.
    std::vector<std::string> rejections_ignored;
};

// Receipts: marks the SENT rows among `event_ids` confirmed, in
// one transaction for the whole receipt. Only SENT rows move, and only from
// unconfirmed to confirmed; every other id is reported and changes nothing.
// kFenced as mark_sent.
// `row_hints`, when not empty, holds one rowid per event id (0: none), the
// row the caller believes holds it (the publisher knows the rows it awaits
// receipts for): a hint whose row carries that eventId saves the
// bisection; any other hint is ignored and the id looked up as usual, so a
// wrong hint changes nothing (R1 still matches eventIds, not rowids).
Result<ConfirmCounts> confirm_events(StoreCore& core, const std::vector<std::string>& event_ids,
                                     int64_t epoch, const std::vector<int64_t>& row_hints = {});

// One event a negative receipt names: the bridge quarantined it.
struct Rejected {
    std::string event_id;
    std::string reason;    // stored as the row's last_error
    int64_t row_hint = 0;  // as confirm_events' row_hints
};

// One receipt message: its eventIds and their row hints (as confirm_events),
// and the events it rejects.
struct ReceiptIds {
    std::vector<std::string> event_ids;
    std::vector<int64_t> row_hints;
    std::vector<Rejected> rejected{};
};

// Several receipt messages confirmed in one transaction (as SENT marks are
// batched), in order: what confirm_events would report for each, as if
// each had its own transaction after the ones before it (an id two receipts
// name is confirmed by the first and already confirmed for the second).
// One result per receipt, in the same order. A failure (kFenced, an I/O
// error) changes nothing and is the result of the whole call.
// Rejections (negative receipts) move only a SENT row without a
// confirmation to DEAD: attempts + 1, last_error = the reason, the epoch
// recorded; every other row is left alone and reported (rejections_ignored).
// Lazy as mark_sent: a power cut may undo it, and the rows then wait for the
// next receipt (a republish draws one).
// An operator replay sends such a row again, as any DEAD row.
Result<std::vector<ConfirmCounts>> confirm_receipts(StoreCore& core,
                                                    const std::vector<ReceiptIds>& receipts,
                                                    int64_t epoch);

// Records a message-level failure of row `id`: attempts+1 and last_error;
// the row becomes DEAD when attempts reaches `max_attempts`. Returns true if
// it did. kFenced as mark_sent.
Result<bool> record_failure(StoreCore& core, int64_t id, const std::string& error, int64_t epoch,
                            int max_attempts);

// Operator replay: DEAD (or SENT) row back to PENDING with the same event id
// and envelope; attempts reset; replay count, time, reason and actor
// recorded. kNotFound if no such event; kInvalidArgument if it is already
// PENDING.
Status replay_event(StoreCore& core, const std::string& event_id, const std::string& reason,
                    const std::string& actor);
// Replays every DEAD row; returns how many.
Result<int64_t> replay_all_dead(StoreCore& core, const std::string& reason,
                                const std::string& actor);
// Deletes DEAD rows (and their alarm records) on operator request; returns
// how many. Like the retention purge it keeps the row with the highest id and
// records each device's highest seq first, so sequences never restart.
Result<int64_t> purge_dead(StoreCore& core);

}  // namespace outpost::store

#endif  // OUTPOST_STORE_OUTBOX_H
