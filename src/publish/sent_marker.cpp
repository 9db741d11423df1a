#include "publish/sent_marker.h"

#include <pthread.h>

#include <algorithm>
#include <iterator>
#include <utility>

#include "store/outbox.h"

namespace outpost::publish {
namespace {

// After a failed mark (I/O error, busy database) the ids are kept and tried
// again after this pause; the rows stay busy, so nothing is republished.
constexpr std::chrono::milliseconds kRetryPause{100};

}  // namespace

SentMarker::SentMarker(store::StoreCore& core, Inbox& inbox, int64_t epoch, int batch,
                       std::chrono::milliseconds delay)
    : core_(core),
      inbox_(inbox),
      epoch_(epoch),
      batch_(static_cast<size_t>(batch > 0 ? batch : 1)),
      delay_(delay),
      thread_([this] { run(); }) {}

SentMarker::~SentMarker() {
    finish();
}

void SentMarker::add(int64_t id) {
    bool wake;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        queued_.push_back(id);
        wake = queued_.size() == 1 || queued_.size() >= batch_;
    }
    if (wake) changed_.notify_one();
}

void SentMarker::add_receipt(std::vector<std::string> event_ids, std::vector<int64_t> row_hints,
                             std::vector<store::Rejected> rejected) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        receipts_.push_back(
            store::ReceiptIds{std::move(event_ids), std::move(row_hints), std::move(rejected)});
    }
    changed_.notify_one();
}

void SentMarker::finish() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        finishing_ = true;
    }
    changed_.notify_one();
    if (thread_.joinable()) thread_.join();
}

void SentMarker::run() {
    pthread_setname_np(pthread_self(), "outpost-mark");
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        changed_.wait(lock, [&] { return finishing_ || !queued_.empty() || !receipts_.empty(); });
        if (queued_.empty() && receipts_.empty()) return;  // finishing, nothing left
        // Let a batch gather: up to `delay_` after the first id arrived.
        if (!queued_.empty()) {
            changed_.wait_for(lock, delay_, [&] { return finishing_ || queued_.size() >= batch_; });
        }
        std::vector<int64_t> ids = std::move(queued_);
        queued_.clear();
        std::vector<store::ReceiptIds> receipts = std::move(receipts_);
        receipts_.clear();
        const bool finishing = finishing_;
        lock.unlock();
        bool retry = false;
        if (!ids.empty()) {
            Status status = store::mark_sent(core_, ids, epoch_);
            retry = !status && status.code() != StatusCode::kFenced && !finishing;
            inbox_.post_marks(MarkReport{retry ? std::vector<int64_t>() : ids, status});
        }
        if (!receipts.empty()) confirm(receipts);
        lock.lock();
        if (retry) {
            queued_.insert(queued_.begin(), ids.begin(), ids.end());
            changed_.wait_for(lock, kRetryPause, [&] { return finishing_; });
        }
    }
}

void SentMarker::confirm(const std::vector<store::ReceiptIds>& receipts) {
    auto counts = store::confirm_receipts(core_, receipts, epoch_);
    ConfirmReport report;
    if (!counts) {
        report.status = counts.status();
    } else {
        for (store::ConfirmCounts& receipt : *counts) {
            std::move(receipt.confirmed.begin(), receipt.confirmed.end(),
                      std::back_inserter(report.confirmed));
            report.ignored += static_cast<int64_t>(
                receipt.already_confirmed.size() + receipt.not_sent.size() +
                receipt.unknown.size() + receipt.rejections_ignored.size());
            for (const store::RejectedRow& row : receipt.dead) {
                report.dead.push_back(
                    DeadEvent{row.event_id, row.device_id, row.seq, row.reason, row.attempts});
            }
            std::move(receipt.already_confirmed.begin(), receipt.already_confirmed.end(),
                      std::back_inserter(report.settled));
        }
    }
    inbox_.post_confirms(std::move(report));
}

}  // namespace outpost::publish
