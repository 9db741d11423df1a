#include "store/commit_wait.h"

#include <algorithm>
#include <new>

#include "store/store_core.h"

namespace outpost::store {
namespace {

void add_unique(std::vector<std::thread::id>& ids, std::thread::id id) {
    if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
}

}  // namespace

std::size_t CommitWait::synced_ops(const std::deque<WriteOp*>& queue,
                                   std::size_t max_batch) noexcept {
    const std::size_t scanned = std::min(queue.size(), max_batch);
    return static_cast<std::size_t>(
        std::count_if(queue.begin(), queue.begin() + static_cast<std::ptrdiff_t>(scanned),
                      [](const WriteOp* op) { return op->durability == Durability::kSynced; }));
}

std::size_t CommitWait::target(const std::deque<WriteOp*>& queue, std::size_t max_batch,
                               Clock::time_point now) const noexcept {
    if (bound().count() <= 0 || last_batch_callers_ < 2 || now - last_batch_end_ >= bound()) {
        return 0;
    }
    try {
        return expected_callers(queue, max_batch);
    } catch (const std::bad_alloc&) {
        return 0;  // no room to count them: start at once
    }
}

std::size_t CommitWait::expected_callers(const std::deque<WriteOp*>& queue,
                                         std::size_t max_batch) const {
    // Expected: the callers of at least two of the remembered batches (one
    // that wrote once, an operator's command, say, is not waited for), and
    // those queued now.
    std::vector<std::thread::id> seen;
    std::vector<std::thread::id> callers;
    for (const auto& batch : recent_) {
        for (std::thread::id id : batch) {
            if (std::find(seen.begin(), seen.end(), id) == seen.end()) {
                seen.push_back(id);
            } else {
                add_unique(callers, id);
            }
        }
    }
    bool synced_queued = false;
    for (const WriteOp* op : queue) {
        if (op->durability != Durability::kSynced) continue;
        synced_queued = true;
        add_unique(callers, op->caller);
    }
    if (!synced_queued || callers.size() < 2) return 0;
    return std::min(callers.size(), max_batch);
}

void CommitWait::batch_done(const std::vector<WriteOp*>& batch, Clock::time_point start,
                            Clock::time_point end) noexcept {
    last_batch_end_ = end;
    if (wait_.count() <= 0) return;
    try {
        std::vector<std::thread::id> callers;
        for (const WriteOp* op : batch) {
            if (op->durability == Durability::kSynced) add_unique(callers, op->caller);
        }
        if (callers.empty()) return;  // a lazy batch says nothing about who writes
        last_batch_callers_ = callers.size();
        last_commit_ = std::chrono::duration_cast<std::chrono::microseconds>(end - start);
        recent_.push_back(std::move(callers));
        if (recent_.size() > kRememberedBatches) recent_.pop_front();
    } catch (const std::bad_alloc&) {
        recent_.clear();  // forgetting only costs a few unshared transactions
        last_batch_callers_ = 0;
    }
}

void CommitWait::forget_absent(const std::deque<WriteOp*>& queue) noexcept {
    for (auto& batch : recent_) {
        batch.erase(std::remove_if(batch.begin(), batch.end(),
                                   [&](std::thread::id id) {
                                       return std::none_of(
                                           queue.begin(), queue.end(),
                                           [id](const WriteOp* op) { return op->caller == id; });
                                   }),
                    batch.end());
    }
}

}  // namespace outpost::store
