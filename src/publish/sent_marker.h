// Batches SENT marks into few transactions on its own thread, so that the
// fsync of a mark never stalls the publish window. Every batch carries the
// lease epoch; the store refuses it (kFenced) if a newer holder exists.
//
// A mark that is lost (crash before it commits) only means the row is
// published again by the next holder: at least once, never a loss.
//
// Receipts go through the same thread, after the marks queued
// before them: a receipt can overtake the SENT mark of its own row (the
// bridge may answer before the mark's fsync), and confirm_events moves only
// SENT rows, so marks first. The receipt messages queued meanwhile are
// confirmed together in one transaction (store::confirm_receipts), as the
// marks are; receipts that fail to commit are dropped (best effort: the
// rows are published again after their timeout and confirmed then).
#ifndef OUTPOST_PUBLISH_SENT_MARKER_H
#define OUTPOST_PUBLISH_SENT_MARKER_H

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "publish/inbox.h"
#include "store/outbox.h"
#include "store/store_core.h"

namespace outpost::publish {

// Owns the thread "outpost-mark", which runs from the constructor until
// finish() or the destructor (which calls finish()).
class SentMarker final {
  public:
    // `core` and `inbox` are borrowed and must outlive the marker. A batch
    // is committed when `batch` ids are waiting or the oldest has waited
    // `delay`. Each finished batch is reported to `inbox` (post_marks).
    SentMarker(store::StoreCore& core, Inbox& inbox, int64_t epoch, int batch,
               std::chrono::milliseconds delay);
    ~SentMarker();
    SentMarker(const SentMarker&) = delete;
    SentMarker& operator=(const SentMarker&) = delete;

    // Queues `id` (its PUBACK arrived) for marking. Thread-safe.
    void add(int64_t id);
    // Queues the eventIds of one receipt message for confirmation, and its
    // rejections (negative receipts) for DEAD, after every id add()ed
    // before; `row_hints` as store::confirm_events takes them (the rows the
    // publisher awaits these receipts for; 0 or empty: unknown).
    // Thread-safe.
    void add_receipt(std::vector<std::string> event_ids, std::vector<int64_t> row_hints = {},
                     std::vector<store::Rejected> rejected = {});
    // Commits whatever is queued, then stops the thread. Idempotent.
    void finish();

  private:
    void run();
    // Confirms every receipt in `receipts` in one transaction and posts
    // one report for them all.
    void confirm(const std::vector<store::ReceiptIds>& receipts);

    store::StoreCore& core_;
    Inbox& inbox_;
    const int64_t epoch_;
    const size_t batch_;
    const std::chrono::milliseconds delay_;

    std::mutex mutex_;
    std::condition_variable changed_;
    std::vector<int64_t> queued_;    // guarded by mutex_
    std::vector<store::ReceiptIds> receipts_;  // guarded by mutex_
    bool finishing_ = false;         // guarded by mutex_
    std::thread thread_;             // started last, after every member it reads
};

}  // namespace outpost::publish

#endif  // OUTPOST_PUBLISH_SENT_MARKER_H
