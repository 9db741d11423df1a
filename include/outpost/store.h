// The gateway store: alarm records and the outbox events that announce them,
// in one SQLite database (WAL, synchronous=FULL).
//
// Promises (DESIGN.md "The promises"):
//  - When record_alarm() or transact() returns OK, the business row and its
//    outbox row are durable: they survive a process kill and a power cut.
//  - Both rows are written in one SQLite transaction, or neither is.
//  - A failed COMMIT is reported as kOutcomeUnknown, never as "not written":
//    retry with the same idempotency key.
//
// Concurrency: a Store is thread-safe. Concurrent callers share transactions
// (group commit): one writer, one fsync per batch, and every caller returns
// only after its batch is durable. Keep one Store per database per process.
#ifndef OUTPOST_STORE_H
#define OUTPOST_STORE_H

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "outpost/alarm.h"
#include "outpost/event.h"
#include "outpost/export.h"
#include "outpost/status.h"
#include "outpost/store_options.h"

namespace outpost {

namespace store {
class StoreCore;
class StoreAccess;  // how this project's own parts reach the engine (not installed)
}  // namespace store

// A value bound to an SQL parameter in Transaction::execute.
using SqlValue = std::variant<std::nullptr_t, int64_t, double, std::string>;

// The application's view of one transaction inside Store::transact. Borrowed
// for the duration of the body only.
class OUTPOST_API Transaction {
  public:
    virtual ~Transaction() = default;
    // Runs one SQL statement (the application's own tables) with `params`
    // bound to ?1, ?2, ... Fails with kInvalidArgument for bad SQL or a
    // constraint violation; the body should then return that status.
    virtual Status execute(const std::string& sql, const std::vector<SqlValue>& params) = 0;
    // Enqueues `event` in the outbox of this transaction. The returned ids
    // become valid only if transact() returns OK.
    virtual Result<RecordedEvent> enqueue(const Event& event) = 0;
};

// Counters a status call can read. All figures are since open unless noted.
struct StoreStats {
    int64_t pending = 0;            // outbox rows not yet SENT (whole database)
    int64_t sent = 0;               // SENT rows still kept
    int64_t confirmed = 0;          // of those, confirmed by a receipt
    int64_t dead = 0;               // DEAD rows awaiting an operator
    int64_t oldest_pending_id = 0;  // 0 when nothing is pending
    // The oldest pending event has waited at least this long (ms), counted
    // on boot clocks only: the rest of the boot it was recorded in, every
    // boot since (as far as the store saw them) and this one. The wall clock
    // is never used, so a gateway that booted at 1970 or rebooted during an
    // outage still reports a true lower bound. -1 when nothing is pending.
    int64_t oldest_pending_age_ms = -1;
    uint64_t database_bytes = 0;  // pages in use * page size
    uint64_t quota_bytes = 0;
    uint64_t commits = 0;              // write transactions committed
    uint64_t events_recorded = 0;      // new outbox rows committed
    uint64_t wal_frames = 0;           // WAL frames appended by our commits
    uint64_t wal_bytes = 0;            // bytes of those frames (page + 24-byte header)
    uint64_t checkpoint_pages = 0;     // pages copied back into the database file
    uint64_t checkpoint_failures = 0;  // failed checkpoints (the WAL keeps the data)
    uint64_t purged_rows = 0;          // SENT rows removed by retention or quota
};

// What happened at open that an operator should hear about.
struct OpenReport {
    bool created = false;           // a new database file was created
    int from_version = 0;           // schema version found (0 = new)
    int to_version = 0;             // schema version now
    std::string moved_aside_path;   // set if a corrupt database was moved aside
    std::string corruption_detail;  // what the check found, if anything
    bool integrity_checked = false;  // PRAGMA quick_check ran at this open
};

class OUTPOST_API Store final {
  public:
    // Opens (creating if needed) the database at `path`, applies pending
    // migrations and checks integrity (options.check_on_open).
    // Errors: kInvalidArgument (bad options), kVersionTooNew (database from a
    // newer Outpost: refused, untouched), kCorruption (damaged and policy is
    // kRefuse), kIoError / kDiskFull, kBusy (another process holds a lock
    // longer than busy_timeout), kInvalidArgument when the database belongs
    // to another gateway_id, kOutcomeUnknown (a migration's COMMIT failed:
    // it may or may not have been applied; open again, which completes it).
    static Result<std::unique_ptr<Store>> open(const std::string& path,
                                               const StoreOptions& options);
    ~Store();
    Store(const Store&) = delete;
    Store& operator=(const Store&) = delete;

    // Records `alarm` and its ALARM_* event atomically and returns once both
    // are durable. Errors: kInvalidArgument (nothing written), kStoreFull,
    // kDiskFull, kIoError (nothing written), kOutcomeUnknown (may or may not
    // be written: retry with the same idempotency key), kClosed, kCorruption
    // (the check after an I/O error found the file damaged: nothing more is
    // written until the store is closed and opened again, which applies
    // StoreOptions::corruption_policy).
    Result<RecordedEvent> record_alarm(const Alarm& alarm);

    // Runs `body` inside one transaction together with other callers' work.
    // Everything `body` writes through the Transaction, and every event it
    // enqueues, commits atomically and durably when this returns OK. If
    // `body` returns an error, its writes are rolled back (others' are not)
    // and that error is returned. If `body` throws, the exception does not
    // cross the store (nor reach the caller whose thread ran it): its writes
    // are rolled back the same way and this returns kInternal naming the
    // exception. kInternal, not kInvalidArgument: the store cannot tell bad
    // input from a bug or std::bad_alloc in the body, and kInternal is the
    // code for "a bug or an unexpected state". The store serves everyone
    // else as before. `body` runs on an internal or another caller's
    // thread, must not block, and must not call the Store.
    // Errors as record_alarm, plus whatever `body` returns.
    Result<std::vector<RecordedEvent>> transact(const std::function<Status(Transaction&)>& body);

    // Deletes up to purge_batch_rows SENT rows older than the retention
    // period (and their alarm records); returns how many. Cheap when nothing
    // is due. The publisher calls it periodically. Not synced on its own: a
    // power cut soon after may bring the rows back, to be purged again.
    Result<int64_t> purge_expired();

    // The store's figures now. Reads a summary row and a few hundred rows at
    // most, never the whole outbox (cheap enough to call every second on a
    // full store). Errors: kIoError / kCorruption / kBusy from the read.
    Result<StoreStats> stats();
    const OpenReport& open_report() const;
    const std::string& path() const;
    const StoreOptions& options() const;
    // The gateway this database belongs to: the one recorded in it, which is
    // options().gateway_id unless that was left empty to read it.
    const std::string& gateway_id() const;

    // Waits for in-progress writes, then closes the database. Later calls
    // fail with kClosed. Called by the destructor.
    Status close();

  private:
    friend class store::StoreAccess;
    OUTPOST_LOCAL explicit Store(std::unique_ptr<store::StoreCore> core);
    std::unique_ptr<store::StoreCore> core_;
};

}  // namespace outpost

#endif  // OUTPOST_STORE_H
