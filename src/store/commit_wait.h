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
// those that did not come. A leader whose batch does not
// follow another closely, or that has seen only one recent caller (the
// common case on a gateway: one process, an occasional alarm), never waits.
#ifndef OUTPOST_STORE_COMMIT_WAIT_H
#define OUTPOST_STORE_COMMIT_WAIT_H

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
    // less than the wait ago, and there are at least two such callers.
    std::size_t target(const std::deque<WriteOp*>& queue, std::size_t max_batch,
                       Clock::time_point now) const noexcept;
    Clock::time_point deadline(Clock::time_point now) const { return now + wait_; }

    // Synced ops in the first `max_batch` of `queue`.
    static std::size_t synced_ops(const std::deque<WriteOp*>& queue,
                                  std::size_t max_batch) noexcept;

    // Records a batch that just ended: its synced ops' callers and the time.
    void batch_done(const std::vector<WriteOp*>& batch, Clock::time_point now) noexcept;

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

    const std::chrono::microseconds wait_;
    // Callers of synced ops of the last kRememberedBatches batches (a
    // caller at most once per batch), oldest batch first.
    std::deque<std::vector<std::thread::id>> recent_;
    Clock::time_point last_batch_end_{};
};

}  // namespace outpost::store

#endif  // OUTPOST_STORE_COMMIT_WAIT_H
