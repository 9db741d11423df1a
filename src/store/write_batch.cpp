// Group commit: many callers, one writer connection, one fsync per batch.
//
// Design (after LevelDB's writer queue). Callers append a WriteOp to a FIFO
// and wait. A caller that finds the queue empty leads: it takes up to
// max_batch ops from the front, runs them all in one SQLite transaction,
// commits, and only then takes them off the queue and wakes their callers,
// each with its own signal. While ops are queued it leads the next batch
// too, up to kMaxBatchesPerLeader batches, then hands the lead to the op at
// the front. On a fast disk this is what keeps the disk busy: a hand-off
// per batch, plus waking every waiter at each commit, cost ~20 context
// switches per batch (bench/store_bench). No dedicated thread: a lone
// caller commits on its own thread with no hand-off.
//
// Invariants:
//  I1. An op is reported OK only after the COMMIT that contains it returned
//      SQLITE_OK with synchronous=FULL, i.e. its WAL frames are fsynced
//      (a kLazy op: after its COMMIT returned SQLITE_OK, see I8).
//      Its caller is woken once (kDone), after that batch is over and its
//      ops are off the queue; run_batch sets the status of exactly the ops
//      of its batch, so a failed batch fails its own callers and no others,
//      whichever thread led it.
//  I2. At most one leader exists: the caller that queued onto an empty
//      queue, or the one a leader handed the lead to (kLead, its op at the
//      front), and a leader stops only with the queue empty or after handing
//      the lead on, both under queue_mutex_. So while the queue is not
//      empty exactly one thread leads or is about to, and a caller that
//      queues behind others never waits for a leader that does not exist.
//      Batches are taken from the front in queue order and run one at a
//      time, so rows commit in the order their ops were queued (per device
//      too). Only the leader touches db_ (and its statements), last_seq_,
//      unsaved_seq_, tally_, the summary_ fields, high_water_id_ and
//      data_version_ (outbox_summary.h states S1-S5 for the tally).
//  I3. Sequence numbers handed out in a batch become visible to later
//      batches only if that batch committed (SeqOverlay merge after COMMIT).
//  I4. A failed COMMIT never reports "not written" unless SQLite refused to
//      write (SQLITE_FULL) before the commit frame could exist: otherwise the
//      outcome is unknown (the frames may be in the WAL) and the caller is
//      told so. Without powersafe overwrite SQLite pads the WAL to a sector
//      boundary with copies of the commit frame after writing it, so there a
//      SQLITE_FULL is "unknown" too (tests/faults/store/commit_full_test.cpp).
//  I5. After an I/O error (in a batch or in a checkpoint) or a failed
//      ROLLBACK the connection is closed and reopened, so SQLite runs
//      recovery instead of us looping on a failed sync; a writer that could
//      not be reopened stays closed and the next batch reopens it.
//  I6. If the check after that reopen finds the file damaged, no batch
//      writes to it again: every later write fails with kCorruption until
//      the store is closed and opened again (Store::open applies the
//      corruption policy).
//  I7. No exception leaves the writer. One thrown by an op (a transact body)
//      becomes that op's kInternal error; an isolated op's writes roll back
//      to its savepoint, any other op's fail its batch. One thrown anywhere
//      else in the leader (std::bad_alloc) fails the ops of its batch that
//      are not yet committed and closes the writer, whose in-memory state
//      it may have interrupted; the next batch reopens it. Either way the
//      leader takes exactly its ops off the queue, each with a status, and
//      wakes their callers, so no caller waits forever and the queue never
//      holds a WriteOp whose caller has returned.
//  I8. Lazy writes. A batch of kLazy ops only (SENT marks, receipt
//      confirmations, retention purges) commits with synchronous=NORMAL: no
//      fsync; a batch holding any kSynced op commits with FULL and carries
//      its lazy ops along. WAL frames are appended in commit order and a
//      sync covers every frame before it, so a lazy batch reaches the disk
//      with the next synced commit or checkpoint, and a power cut undoes
//      only lazy batches committed after the last sync: recovery keeps a
//      prefix of the commits, never a synced commit without every earlier
//      one. What undoing a lazy op does: a SENT row is PENDING again and is
//      published again with the same eventId (receipts and the consumers'
//      dedupe absorb the repeat); a receipt's confirmation waits for the
//      next receipt; a purged row is purged again. No acknowledged alarm is
//      lost or reordered. A process crash undoes nothing (the frames are in
//      the page cache). The proof's checker enforces exactly this: a mark
//      that returned OK may be undone only if no alarm call that started
//      after it was acknowledged (proof/checker.h, C5).
//  I9. The WAL file has its full size (kCheckpointFrames frames) from the
//      writer's first batch: zeros written past its end once per writer
//      connection, under the write lock, so no frame of any connection is
//      there (SQLite writes frames at offsets it computes from its frame
//      count, and recovery stops at the first frame whose salt does not
//      match, which a zero frame never does). A commit then overwrites
//      blocks the file already has, and its fdatasync writes no ext4
//      metadata: a WAL that grew with each commit paid a journal commit, and
//      a flush, per commit. journal_size_limit (4 MiB) is above that size,
//      so SQLite keeps it; it deletes the file when the last connection
//      closes.
//  I10. Commit wait. Before taking a batch, a leader may wait, at most
//      StoreOptions::commit_wait, for the synced ops of the callers that
//      wrote in the last few batches (commit_wait.h says when). It waits
//      only with its own op queued and the lock released, so while it waits
//      ops only join the queue; the batch it then takes is still the front
//      of the queue in order (I2), and no op is reported before its own
//      batch commits (I1). The wait changes which ops share a transaction,
//      never what a commit promises. close() ends a wait at once.
#include <algorithm>
#include <cassert>
#include <cstddef>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>

#include "common/fault_point.h"
#include "store/store_core.h"

namespace outpost::store {
namespace {

// I4: true if SQLite writes nothing after a commit frame, i.e. the database
// file reports powersafe overwrite (SQLite then never pads the WAL).
bool wal_never_padded(sqlite3* db) {
    sqlite3_file* file = nullptr;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK ||
        file == nullptr || file->pMethods == nullptr) {
        return false;
    }
    return (file->pMethods->xDeviceCharacteristics(file) & SQLITE_IOCAP_POWERSAFE_OVERWRITE) != 0;
}

// What the exception being handled says. Call inside a catch block only.
std::string describe_current_exception() {
    try {
        throw;
    } catch (const std::exception& e) {
        return e.what();
    } catch (...) {
        return "an exception of unknown type";
    }
}

}  // namespace

Db& BatchContext::db() { return core_.writer(); }

int64_t BatchContext::next_seq(const std::string& device_id) {
    auto it = overlay_.find(device_id);
    int64_t next = (it != overlay_.end() ? it->second : core_.committed_seq(device_id)) + 1;
    overlay_[device_id] = next;
    return next;
}

int64_t StoreCore::committed_seq(const std::string& device_id) const {
    auto it = last_seq_.find(device_id);
    return it == last_seq_.end() ? 0 : it->second;
}

Status StoreCore::submit(WriteOp& op) {
    std::unique_lock<std::mutex> lock(queue_mutex_);
    if (closed_) return Status::error(StatusCode::kClosed, "store " + path_ + " is closed");
    op.caller = std::this_thread::get_id();
    try {
        queue_.push_back(&op);
    } catch (const std::bad_alloc&) {
        return out_of_memory_;  // nothing was queued
    }
    // I10: a waiting leader is woken once, when its batch is complete.
    if (leader_waiting_ && op.durability == Durability::kSynced &&
        CommitWait::synced_ops(queue_, options_.max_batch) == wait_target_) {
        arrivals_cv_.notify_one();
    }
    if (queue_.size() > 1) {
        // I2: a leader exists. It wakes this caller once: when the batch
        // holding op is done, or to hand it the lead (op is then at the front).
        lock.unlock();
        if (op.wake.wait() == WakeSignal::Kind::kDone) return op.status;
        lock.lock();
    }
    lead(lock, op);
    return op.status;  // I1: set by the batch that held op, which is over
}

void StoreCore::lead(std::unique_lock<std::mutex>& lock, WriteOp& own) {
    assert(queue_.front() == &own);  // I2: a lead starts at the front
    std::vector<WriteOp*> batch;
    for (unsigned led = 1;; ++led) {
        wait_for_callers(lock);  // I10
        // The ops from the front, in order (own is in the first batch).
        // I7: from here on nothing throws until exactly these ops are done.
        const size_t taken = std::min<size_t>(queue_.size(), options_.max_batch);
        try {
            batch.assign(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(taken));
        } catch (const std::bad_alloc&) {
            batch.clear();  // no room for the list: the ops fail below, unrun
        }
        const bool ran = batch.size() == taken;
        lock.unlock();
        const auto batch_start = CommitWait::Clock::now();
        if (ran) run_batch(batch);
        lock.lock();
        if (ran) commit_wait_.batch_done(batch, batch_start, CommitWait::Clock::now());
        for (size_t i = 0; i < taken; ++i) {
            WriteOp* finished = queue_.front();
            assert(!ran || finished == batch[i]);
            queue_.pop_front();
            if (!ran) {
                // Rare: no list to wake them from below, so wake them here
                // (lock order: queue_mutex_, then an op's signal).
                finished->status = out_of_memory_;
                if (finished != &own) finished->wake.post(WakeSignal::Kind::kDone);
            }
        }
        // I2: lead on while ops are queued, up to the cap; then hand the lead
        // to the op now at the front, whose caller is waiting for a wake-up.
        const bool queued = !queue_.empty();
        WriteOp* next_leader = queued && led == kMaxBatchesPerLeader ? queue_.front() : nullptr;
        if (!queued && closed_) drained_cv_.notify_all();
        lock.unlock();
        // From here until the lock is taken again nothing of *this is
        // touched: once the queue is empty, close() may return and the store
        // be destroyed while the callers below are woken.
        if (next_leader != nullptr) next_leader->wake.post(WakeSignal::Kind::kLead);
        if (ran) {
            // I1: each caller is woken once, after its own batch is over.
            for (WriteOp* finished : batch) {
                if (finished != &own) finished->wake.post(WakeSignal::Kind::kDone);
            }
        }
        if (!queued || next_leader != nullptr) return;
        lock.lock();
    }
}

void StoreCore::wait_for_callers(std::unique_lock<std::mutex>& lock) {
    const size_t max_batch = options_.max_batch;
    const auto now = CommitWait::Clock::now();
    const size_t target = commit_wait_.target(queue_, max_batch, now);
    if (target == 0) return;
    leader_waiting_ = true;
    wait_target_ = target;
    const bool arrived = arrivals_cv_.wait_until(lock, commit_wait_.deadline(now), [&] {
        return closed_ || CommitWait::synced_ops(queue_, max_batch) >= target;
    });
    leader_waiting_ = false;
    if (!arrived) commit_wait_.forget_absent(queue_);
}

size_t StoreCore::queued_ops() const {
    std::lock_guard<std::mutex> lock(queue_mutex_);
    return queue_.size();
}

void StoreCore::fail_all(const std::vector<WriteOp*>& batch, const Status& status) {
    for (WriteOp* op : batch) {
        if (op->status) op->status = status;
    }
}

Status StoreCore::begin_batch(bool synced) {
    if (!damaged_.is_ok()) return damaged_;  // I6
    if (!db_.is_open()) {
        Status reopened = open_writer();
        if (!reopened) return reopened.with_context("reopening " + path_);
    }
    if (synced != synchronous_full_) {
        // I8: outside a transaction, so the whole batch commits with it.
        auto pragma = cached(synced ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=NORMAL");
        if (!pragma) return pragma.status();
        Status status = (*pragma)->run("setting the durability of a batch on " + path_);
        if (!status) return status;
        synchronous_full_ = synced;
    }
    // IMMEDIATE takes the write lock now: no lock upgrade (and no BUSY
    // deadlock with another process) halfway through the batch.
    auto begin = cached("BEGIN IMMEDIATE");
    if (!begin) return begin.status();
    Status status = (*begin)->run("starting a write transaction on " + path_);
    if (!status) return status;
    if (!wal_sized_) size_wal();  // I9: under the write lock just taken
    // Another connection committed since our last look: it may have added
    // rows with sequence numbers we have not seen (another writer process).
    auto version = cached("PRAGMA data_version");
    if (!version) return version.status();
    auto step = (*version)->step("reading data_version");
    if (!step) return step.status();
    int64_t now = (*version)->column_int(0);
    (*version)->reset();  // an unreset statement would pin a read snapshot
    if (now != data_version_) {
        data_version_ = now;
        used_bytes_bound_ = -1;  // Q1: another connection wrote
        status = load_outbox_state();  // S5, under the write lock
    }
    return status;
}

void StoreCore::run_batch(const std::vector<WriteOp*>& batch) noexcept {
    bool committed = false;
    try {
        write_batch(batch, &committed);
    } catch (...) {
        // I7: start again from the file. Closing rolls back a transaction
        // still open; the next batch reopens and reloads sequence numbers.
        db_.close();
        if (committed) return;            // durable: the callers' OK stands
        Status failure = out_of_memory_;  // if describing it throws too
        try {
            failure = Status::error(StatusCode::kInternal,
                                    "the write batch on " + path_ + " failed (" +
                                        describe_current_exception() + "); nothing was written");
        } catch (...) {
        }
        fail_all(batch, failure);
    }
}

void StoreCore::write_batch(const std::vector<WriteOp*>& batch, bool* committed) {
    for (WriteOp* op : batch) op->status = Status::ok();
    const int64_t wall_ms = clock_->wall_ms();
    const int64_t uptime_ms = clock_->boot_ms();

    const bool synced = std::any_of(batch.begin(), batch.end(), [](const WriteOp* op) {
        return op->durability == Durability::kSynced;
    });
    Status status = begin_batch(synced);
    if (!status) {
        fail_all(batch, abandon_batch(status));
        return;
    }

    SeqOverlay overlay;
    BatchContext context(*this, overlay, wall_ms, uptime_ms);
    uint64_t growth = 0;
    for (WriteOp* op : batch) growth += op->growth_bytes;
    if (growth > 0) {
        status = make_room(growth, uptime_ms, context.change());
        if (status.code() == StatusCode::kStoreFull) {
            // Inserts fail; updates (SENT marks, failures) still commit,
            // since they are what frees space.
            for (WriteOp* op : batch) {
                if (op->growth_bytes > 0 && op->refused_when_full) op->status = status;
            }
            status = Status::ok();
        }
    }

    for (WriteOp* op : batch) {
        if (!status) break;
        if (!op->status) continue;
        if (!op->isolated) {
            status = apply_op(*op, context);
            continue;
        }
        SeqOverlay before = overlay;
        const int64_t max_id_before = context.max_outbox_id();
        const uint64_t events_before = context.events_added();
        const OutboxChange change_before = context.change();
        status = db_.exec("SAVEPOINT op", "opening a savepoint");
        if (!status) break;
        Status applied = apply_op(*op, context);
        if (!applied) {
            op->status = applied;
            overlay = std::move(before);
            context.restore_inserts(max_id_before, events_before, change_before);
            status = db_.exec("ROLLBACK TO op", "rolling back one operation");
        }
        if (status) status = db_.exec("RELEASE op", "releasing a savepoint");
    }

    OutboxTally tally_after;
    OutboxSummary summary_saved;  // through_id 0: not written by this batch
    if (status) status = prepare_summary(context, uptime_ms, &tally_after, &summary_saved);

    if (status) {
        // I1: with synchronous=FULL this COMMIT returns only after the WAL
        // frames are fsynced: the point where callers may be told "durable"
        // (a lazy batch, I8: committed, synced later).
        OUTPOST_FAULT_POINT("store.before_commit");
        auto commit = cached("COMMIT");
        status = commit ? (*commit)->run("committing to " + path_) : commit.status();
        if (!status &&
            (status.code() != StatusCode::kDiskFull || !wal_never_padded(db_.handle()))) {
            // I4: SQLite may have written the frames; only the sync (or the
            // padding after the commit frame) failed.
            status = Status::error(StatusCode::kOutcomeUnknown,
                                   status.message() +
                                       "; the write may or may not have reached the disk: "
                                       "retry with the same idempotency key");
        }
    }

    if (!status) {
        fail_all(batch, abandon_batch(status));
        return;
    }
    *committed = true;
    OUTPOST_FAULT_POINT("store.after_commit");

    for (const auto& [device, seq] : overlay) last_seq_[device] = seq;  // I3
    tally_ = tally_after;                                               // S1
    if (summary_saved.through_id > 0) {
        unsaved_seq_.clear();  // S4: written with the summary
        summary_through_id_ = summary_saved.through_id;
        summary_uptime_ms_ = summary_saved.uptime_ms;
        summary_boot_id_ = summary_saved.boot_id;
    } else {
        for (const auto& [device, seq] : overlay) unsaved_seq_[device] = seq;
    }
    high_water_id_ = std::max(high_water_id_, context.max_outbox_id());
    {
        std::lock_guard<std::mutex> lock(stats_mutex_);
        counters_.commits++;
        counters_.events_recorded += context.events_added();
    }
    if (!checkpoint_failure_.is_ok()) {
        // The batch is durable in the WAL; only copying it back failed.
        const StatusCode code = std::exchange(checkpoint_failure_, Status()).code();
        if (code == StatusCode::kIoError || code == StatusCode::kCorruption) {
            recover_after_io_error().ignore_error(  // I5; damage is kept in damaged_ (I6)
                "this batch committed; the next one reopens or refuses the writer");
        }
    }
    // After the durable COMMIT only: a listener (the publisher) must never
    // see a row whose transaction could still roll back (no phantom events).
    std::lock_guard<std::mutex> lock(listener_mutex_);
    if (commit_listener_) commit_listener_();
}

void StoreCore::set_commit_listener(std::function<void()> listener) {
    std::lock_guard<std::mutex> lock(listener_mutex_);
    commit_listener_ = std::move(listener);
}

Status StoreCore::apply_op(WriteOp& op, BatchContext& context) {
    try {
        return op.apply(context);
    } catch (...) {  // I7
        return Status::error(
            StatusCode::kInternal,
            "the write threw an exception (" + describe_current_exception() +
                (op.isolated ? "); its own writes were rolled back"
                             : "); its batch was rolled back, nothing was written"));
    }
}

Status StoreCore::close() {
    std::unique_lock<std::mutex> lock(queue_mutex_);
    closed_ = true;  // no op joins the queue from now on
    arrivals_cv_.notify_all();  // I10: a waiting leader starts at once
    drained_cv_.wait(lock, [&] { return queue_.empty(); });
    {
        // Before the writer: the last connection to close checkpoints and
        // removes the WAL, which a read-only one cannot do.
        std::lock_guard<std::mutex> reader_lock(status_reader_mutex_);
        status_reader_.close();
    }
    db_.close();
    return Status::ok();
}

}  // namespace outpost::store
