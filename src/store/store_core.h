// The engine behind outpost::Store: one writer connection, a group-commit
// queue in front of it, and the in-memory state that keeps the happy path to
// two page writes per alarm. See write_batch.cpp for the durability design.
#ifndef OUTPOST_STORE_STORE_CORE_H
#define OUTPOST_STORE_STORE_CORE_H

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "outpost/status.h"
#include "outpost/store.h"
#include "outpost/store_options.h"
#include "store/commit_wait.h"
#include "store/outbox_summary.h"
#include "store/sqlite_db.h"
#include "store/wake_signal.h"

namespace outpost::store {

class StoreCore;

// Sequence numbers handed out by the batch in progress; merged into the
// committed map only after COMMIT succeeds, so a rolled-back batch leaves no
// holes in the per-device sequence.
using SeqOverlay = std::unordered_map<std::string, int64_t>;

// What a write operation sees while its batch transaction is open.
class BatchContext final {
public:
    BatchContext(StoreCore& core, SeqOverlay& overlay, int64_t wall_ms, int64_t uptime_ms)
        : core_(core), overlay_(overlay), wall_ms_(wall_ms), uptime_ms_(uptime_ms) {}
    StoreCore& core() { return core_; }
    Db& db();
    // The next sequence number for `device_id` in this batch.
    int64_t next_seq(const std::string& device_id);
    SeqOverlay& overlay() { return overlay_; }
    int64_t wall_ms() const { return wall_ms_; }
    int64_t uptime_ms() const { return uptime_ms_; }
    // Every outbox insert reports its rowid, so the writer knows the highest
    // id it has seen without trusting last_insert_rowid (application inserts).
    void note_outbox_insert(int64_t id) {
        max_outbox_id_ = std::max(max_outbox_id_, id);
        ++events_added_;
        change_.inserted(id);
    }
    // What this batch did to the outbox's figures (outbox_summary.h, S1).
    // Every op that changes a row's state or deletes rows reports it here.
    OutboxChange& change() { return change_; }
    int64_t max_outbox_id() const { return max_outbox_id_; }
    uint64_t events_added() const { return events_added_; }
    // Forgets the inserts and changes of an operation that was rolled back.
    void restore_inserts(int64_t max_outbox_id, uint64_t events_added, const OutboxChange& change) {
        max_outbox_id_ = max_outbox_id;
        events_added_ = events_added;
        change_ = change;
    }

private:
    StoreCore& core_;
    SeqOverlay& overlay_;
    int64_t max_outbox_id_ = 0;
    uint64_t events_added_ = 0;
    OutboxChange change_;
    int64_t wall_ms_;
    int64_t uptime_ms_;
};

// When a write may be reported OK (write_batch.cpp, I1 and I8).
enum class Durability {
    // Only once its frames are synced: it survives any power cut. Every
    // write whose loss could lose or reorder an alarm (records, transact
    // bodies, lease epochs, failures, operator changes).
    kSynced,
    // Once committed, before any sync: a power cut may undo it, and undoing
    // it only repeats work (SENT marks, receipt confirmations, retention
    // purges). It reaches the disk with the next synced commit.
    kLazy,
};

// One request in the group-commit queue. The submitter owns it and blocks in
// StoreCore::submit until its batch is done (write_batch.cpp, I2).
struct WriteOp {
    // Runs inside the open batch transaction. An error from an `isolated` op
    // rolls back that op only; from any other op it fails the whole batch.
    std::function<Status(BatchContext&)> apply;
    bool isolated = false;
    // Bytes this op will add; checked against the quota (make_room).
    uint64_t growth_bytes = 0;
    // What a quota with nothing left to purge does to this op: an insert is
    // refused (kStoreFull). An update that lengthens rows (a SENT mark) is
    // not: it is how a full store drains, so it commits anyway and grows
    // into the page limit's headroom (store_open.cpp).
    bool refused_when_full = true;
    Durability durability = Durability::kSynced;
    // Set by submit: the thread that waits for this op (CommitWait, I10).
    std::thread::id caller;
    // Set by the writer.
    Status status;
    // Posted once by a leader: kDone after the batch holding this op
    // committed or failed (status is final), or kLead when this op's caller
    // is to lead the next batches itself (I2).
    WakeSignal wake;
};

// The WAL is checkpointed when it holds this many frames (SQLite's default),
// and given the size they take from its first write (I9, write_batch.cpp).
constexpr int kCheckpointFrames = 1000;
// SQLite's WAL format: a header, then frames of a frame header and a page.
constexpr int64_t kWalHeaderBytes = 32;
constexpr int64_t kWalFrameHeaderBytes = 24;

class StoreCore final {
public:
    static Result<std::unique_ptr<StoreCore>> open(const std::string& path,
                                                   const StoreOptions& options);
    ~StoreCore();

    // Queues `op` and blocks until the batch holding it has committed (durably
    // unless op.durability is kLazy; returns op.status: OK) or failed. Thread-safe. An exception thrown by
    // op.apply is caught and returned as kInternal (write_batch.cpp, I7).
    // The calling thread may meanwhile lead other callers' batches (at most
    // kMaxBatchesPerLeader in all), so op.apply may run on another thread.
    Status submit(WriteOp& op);

    // How many batches one caller leads in a row while ops are queued (I2):
    // each one more saves a hand-off between threads; the cap bounds how long
    // the leader's own caller waits beyond its own batch.
    static constexpr unsigned kMaxBatchesPerLeader = 8;

    // Write requests in the queue now, the batch in progress included. An
    // observation (for tests and diagnostics): it may change at once.
    size_t queued_ops() const;

    // Opens an extra read-only connection to the same database (same VFS),
    // for readers that must not queue behind writers: the publisher, admin
    // reads. `role` sizes its page cache (sqlite_db.cpp).
    Result<Db> open_reader(Db::Role role = Db::Role::kReader) const;

    // The counters and the outbox figures, read in one snapshot through the
    // store's one status connection (stats.cpp): opened at the first call,
    // kept open between calls with no read transaction, closed after any
    // failed read (the next call reopens it) and by close(). Thread-safe;
    // concurrent callers take turns on that connection.
    Result<StoreStats> stats();
    void count_purged(int64_t rows);

    // Receipts: while on, retention and quota purge only SENT rows
    // a receipt confirmed, since an unconfirmed one may still have to be
    // published again. Set by the publisher that holds this store
    // (PublisherOptions::receipts); off (SENT is final) otherwise.
    void set_purge_confirmed_only(bool on) { purge_confirmed_only_ = on; }
    bool purge_confirmed_only() const { return purge_confirmed_only_; }

    // Calls `listener` after every write transaction of this process that
    // committed durably (on the committing thread, outside the queue lock).
    // Replaces any previous listener; nullptr removes it. Once this returns,
    // the previous listener is not running and will not be called again.
    // The listener must be quick and must not call the Store.
    void set_commit_listener(std::function<void()> listener);
    Status close();

    const std::string& path() const { return path_; }
    const StoreOptions& options() const { return options_; }
    const Clock& clock() const { return *clock_; }
    const OpenReport& report() const { return report_; }
    const std::string& boot_id() const { return boot_id_; }
    // The gateway this database belongs to (from the database, or the
    // options when the database is new).
    const std::string& gateway_id() const { return gateway_id_; }
    // alarm_envelope_skeleton_bytes for this store's ids, computed by
    // `compute` on the first call (gateway and boot ids do not change).
    size_t alarm_skeleton_bytes(const std::function<size_t()>& compute) {
        std::call_once(alarm_skeleton_once_, [&] { alarm_skeleton_bytes_ = compute(); });
        return alarm_skeleton_bytes_;
    }

    // Writer-side state, used by ops while they run inside a batch.
    Db& writer() { return db_; }
    int64_t committed_seq(const std::string& device_id) const;
    // Prepared statements on the writer connection (Db::cached): reset
    // when handed out, finalized when the writer closes or reopens.
    Result<Stmt*> cached(const std::string& sql) { return db_.cached(sql); }
    Result<Stmt*> cached(const char* sql) { return db_.cached(sql); }

private:
    StoreCore(std::string path, const StoreOptions& options);
    // Opens db_ fully configured, or leaves it closed (never half-configured:
    // begin_batch reopens a closed writer).
    Status open_writer();
    // check_once_per_boot: whether this file passed quick_check in this boot.
    Result<bool> checked_this_boot();
    // quick_check; damage goes to report_.corruption_detail (Status stays ok),
    // a clean result is remembered for this boot when check_once_per_boot.
    Status check_integrity();
    Status configure_writer();
    // store_open.cpp, step 1b: every store gets the same page size.
    Status set_page_size();
    // Rows past `after_id`: their devices' seqs (kept unsaved for S4) and the
    // highest id.
    Status load_sequences(int64_t after_id);
    // At open and after another connection wrote (S5): tally_, the summary
    // position, the devices' seqs and the event id generator, from the
    // summary, device_seq and the tail past it; never a scan of the table.
    Status load_outbox_state();
    // Before COMMIT: the tally after this batch, and the summary row when
    // S2/S3 ask for it (`*saved` says so).
    Status prepare_summary(BatchContext& context, int64_t uptime_ms, OutboxTally* after,
                           OutboxSummary* saved);
    // `synced`: the batch holds a kSynced op (I8).
    Status begin_batch(bool synced);
    // I9 (write_batch.cpp): gives the WAL file its full size once per writer
    // connection. Called with the write lock held; never fails (it only
    // saves writes).
    void size_wal() noexcept;
    // Runs `batch` as one transaction and sets each op's status (I7: never
    // throws; write_batch may, and `committed` says how far it got).
    void run_batch(const std::vector<WriteOp*>& batch) noexcept;
    // The leader's loop (I2): batches from the front of the queue while ops
    // are queued, up to kMaxBatchesPerLeader, then the lead goes to the op at
    // the front. Called and returns with `lock` (queue_mutex_) held.
    void lead(std::unique_lock<std::mutex>& lock, WriteOp& own);
    // I10: before a batch, waits (at most options_.commit_wait, releasing
    // `lock` meanwhile) for the synced ops of callers that wrote recently.
    void wait_for_callers(std::unique_lock<std::mutex>& lock);
    void write_batch(const std::vector<WriteOp*>& batch, bool* committed);
    Status apply_op(WriteOp& op, BatchContext& context);
    Status make_room(uint64_t growth, int64_t uptime_ms, OutboxChange& change);
    void fail_all(const std::vector<WriteOp*>& batch, const Status& status);
    // Ends a failed batch: rolls back, and after an I/O error, a failed
    // rollback or damage reopens (I5). Returns `failure` with what the
    // recovery found appended to its message.
    Status abandon_batch(const Status& failure);
    Status recover_after_io_error();
    // SQLite's WAL hook: counts frames and checkpoints. Never throws (it
    // runs inside SQLite's C frames).
    static int on_wal_commit(void* self, sqlite3* db, const char* name, int frames) noexcept;
    void after_wal_commit(sqlite3* db, const char* name, int frames);

    const std::string path_;
    const StoreOptions options_;
    const Clock* clock_;
    std::string boot_id_;
    std::string gateway_id_;
    OpenReport report_;
    std::once_flag alarm_skeleton_once_;
    size_t alarm_skeleton_bytes_ = 0;  // set once under alarm_skeleton_once_

    mutable std::mutex queue_mutex_;
    // Ops queued or in the batch running (at the front), in arrival order.
    std::deque<WriteOp*> queue_;          // guarded by queue_mutex_
    bool closed_ = false;                 // guarded by queue_mutex_
    std::condition_variable drained_cv_;  // close() waits on it for an empty queue
    CommitWait commit_wait_;              // guarded by queue_mutex_ (I10)
    bool leader_waiting_ = false;         // guarded by queue_mutex_
    size_t wait_target_ = 0;              // guarded by queue_mutex_: synced ops it waits for
    std::condition_variable arrivals_cv_;  // a waiting leader's: an op was queued

    // Owned by the batch leader: only the one leader (I2) touches these.
    Db db_;
    std::unordered_map<std::string, int64_t> last_seq_;
    // Devices whose seq went past device_seq since the last summary (S4).
    std::unordered_map<std::string, int64_t> unsaved_seq_;
    OutboxTally tally_;               // S1
    int64_t summary_through_id_ = 0;  // the summary row as last written or read
    int64_t summary_uptime_ms_ = 0;
    std::string summary_boot_id_;
    int64_t high_water_id_ = 0;   // highest outbox id this process has seen
    int64_t data_version_ = -1;   // PRAGMA data_version after our last look
    int64_t page_size_ = 4096;
    bool synchronous_full_ = true;  // the writer's PRAGMA synchronous is FULL (I8)
    bool wal_sized_ = false;        // size_wal() ran on this writer connection (I9)
    int wal_frames_seen_ = 0;     // frame count the WAL hook reported last
    // Q1 (quota.cpp): at least the bytes the database uses; -1: unknown.
    int64_t used_bytes_bound_ = -1;
    Status checkpoint_failure_;   // the WAL hook's last failed checkpoint, until handled
    // Made at construction, so that running out of memory can still be
    // reported without allocating (I7).
    const Status out_of_memory_ = Status::error(
        StatusCode::kInternal, "out of memory in the store's writer; nothing was written");
    // Set when recovery found the file damaged (I6): every later batch
    // fails with it, and nothing writes to the file until it is reopened.
    Status damaged_;

    std::mutex listener_mutex_;
    std::function<void()> commit_listener_;  // guarded by listener_mutex_

    mutable std::mutex stats_mutex_;
    StoreStats counters_;         // guarded by stats_mutex_
    // The status connection: one for the store's life rather than one per
    // stats() call (a connection's page cache, schema and open cost each
    // time, once a second from the publisher's backlog probe alone).
    std::mutex status_reader_mutex_;
    Db status_reader_;  // guarded by status_reader_mutex_
    std::atomic<bool> purge_confirmed_only_{false};
};

}  // namespace outpost::store

#endif  // OUTPOST_STORE_STORE_CORE_H
