// The group commit's wait for callers that are about to write again
// (StoreOptions::commit_wait; write_batch.cpp, I10).
//
// Each synced batch costs a flush and rewrites the WAL block its
// predecessor ended in, so on flash the bytes per alarm fall with the
// number of alarms per transaction. Callers that write in a loop (outpostd's
// connections, each answered when its commit is durable) come back a
// moment after their batch: without a wait they split into small batches
// that alternate. CommitWait remembers who wrote synced ops in the last few
// batches and tells a leader that is about to start a batch right after the
// previous one how many of them to wait for; a wait that runs out forgets
// those that did not come. A leader whose batch does not follow another
// closely, or follows one that a single caller had to itself (the common
// case on a gateway: one process, an occasional alarm; or callers each at
// their own pace), never waits. A wait ends as soon as the callers are
// back, so its bound costs time only when one of them stopped writing.
#ifndef OUTPOST_STORE_COMMIT_WAIT_H
#define OUTPOST_STORE_COMMIT_WAIT_H

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <deque>
#include <thread>
#include <vector>

namespace outpost::store {

struct WriteOp;

// Not thread-safe: the store keeps it under its queue mutex.
class CommitWait final {
public:
    using Clock = std::chrono::steady_clock;

    explicit CommitWait(std::chrono::microseconds wait) : wait_(wait) {}

    // How many synced ops a leader starting a batch at `now` should have in
    // `queue` (capped at `max_batch`) before it starts, waiting for them
    // until the deadline it gets from deadline(); 0: start now. The callers
    // waited for are those with synced ops in at least two of the last
    // kRememberedBatches batches, and those queued now. Nonzero only when
    // the wait is on, the queue holds a synced op, the previous batch ended
    // less than the wait ago, the last batch with synced ops had them from
    // two callers or more (callers that queued at the same time: a paced
    // caller's alarms each commit alone), and there are at least two such
    // callers.
    std::size_t target(const std::deque<WriteOp*>& queue, std::size_t max_batch,
                       Clock::time_point now) const noexcept;
    Clock::time_point deadline(Clock::time_point now) const { return now + bound(); }

    // Synced ops in the first `max_batch` of `queue`.
    static std::size_t synced_ops(const std::deque<WriteOp*>& queue,
                                  std::size_t max_batch) noexcept;

    // Records a batch that ran from `start` to `end`: its synced ops'
    // callers, when it ended, and how long a synced commit took.
    void batch_done(const std::vector<WriteOp*>& batch, Clock::time_point start,
                    Clock::time_point end) noexcept;

    // A wait ran out: the callers it waited for that have no op in `queue`
    // are forgotten (a connection that stopped writing costs one wait).
    void forget_absent(const std::deque<WriteOp*>& queue) noexcept;

    // Nothing here throws: the group commit's leader calls these where an
    // exception would leave callers waiting (write_batch.cpp, I7); without
    // memory to count callers, a batch starts at once.

private:
    std::size_t expected_callers(const std::deque<WriteOp*>& queue, std::size_t max_batch) const;

    // The batches whose callers count as recent.
    static constexpr std::size_t kRememberedBatches = 4;

    // The longest a wait may last: the configured wait, or kCommitsPerWait
    // times the last synced batch's duration if shorter. Waiting leaves the
    // disk idle, which is worth the flushes it saves only while it is short
    // next to a commit. Eight threads in a loop on a disk whose commits take
    // 0.2 ms reach 0.82 of raw batched SQLite's rate without a wait, 0.5-0.6
    // with a fixed 20 ms bound and 0.68 with this one; where each sync
    // takes 2 ms, 1.00 without and 0.95 with it, at twice the alarms per
    // flush (bench/store_bench).
    std::chrono::microseconds bound() const {
        return std::min(wait_, kCommitsPerWait * last_commit_);
    }
    static constexpr int kCommitsPerWait = 4;

    const std::chrono::microseconds wait_;
    std::chrono::microseconds last_commit_{0};  // the last synced batch's duration
    // Callers of synced ops of the last kRememberedBatches batches (a
    // caller at most once per batch), oldest batch first.
    std::deque<std::vector<std::thread::id>> recent_;
    Clock::time_point last_batch_end_{};
    // Callers of synced ops in the last batch that had any.
    std::size_t last_batch_callers_ = 0;
};

}  // namespace outpost::store

#endif  // OUTPOST_STORE_COMMIT_WAIT_H
