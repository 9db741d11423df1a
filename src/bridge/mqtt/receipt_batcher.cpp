#include "bridge/mqtt/receipt_batcher.h"

#include <pthread.h>

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <utility>

#include "common/receipt_contract.h"

namespace outpost::bridge {

ReceiptBatcher::ReceiptBatcher(const ReceiptsConfig& config, ReceiptSender& sender)
    : config_(config), sender_(sender), thread_([this] { run(); }) {}

ReceiptBatcher::~ReceiptBatcher() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_one();
    if (thread_.joinable()) thread_.join();
}

template <typename Add>
void ReceiptBatcher::enqueue(const std::string& topic, Add add) {
    bool wake = false;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        counts_.ids_offered++;
        if (queued_ >= config_.max_queued) {
            counts_.ids_dropped++;
            return;
        }
        Batch& batch = batches_[topic];
        if (batch.size() == 0) {
            batch.first = std::chrono::steady_clock::now();
            wake = true;  // a new deadline
        }
        add(batch);
        queued_++;
        if (batch.full(config_.max_ids)) wake = true;
    }
    if (wake) changed_.notify_one();
}

void ReceiptBatcher::offer(const std::string& topic, const std::string& event_id) {
    enqueue(topic, [&](Batch& batch) { batch.ids.push_back(event_id); });
}

void ReceiptBatcher::offer_rejection(const std::string& topic, receipt::Rejection rejection) {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        counts_.rejections_offered++;
    }
    enqueue(topic, [&](Batch& batch) { batch.rejected.push_back(std::move(rejection)); });
}

ReceiptCounts ReceiptBatcher::counts() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return counts_;
}

void ReceiptBatcher::run() {
    pthread_setname_np(pthread_self(), "receipts");
    const auto flush_after = std::chrono::milliseconds(config_.flush_ms);
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
        if (stopping_) {
            flush(lock, true);
            return;
        }
        if (batches_.empty()) {
            changed_.wait(lock);
            continue;
        }
        auto deadline = batches_.begin()->second.first + flush_after;
        bool full = false;
        for (const auto& [topic, batch] : batches_) {
            deadline = std::min(deadline, batch.first + flush_after);
            full = full || batch.full(config_.max_ids);
        }
        if (!full && std::chrono::steady_clock::now() < deadline) {
            changed_.wait_until(lock, deadline);
        }
        flush(lock, false);
    }
}

namespace {

// Moves the first `count` entries of `from` into a new vector.
template <typename T>
std::vector<T> cut_front(std::vector<T>& from, std::size_t count) {
    std::vector<T> slice(std::make_move_iterator(from.begin()),
                         std::make_move_iterator(from.begin() + static_cast<std::ptrdiff_t>(count)));
    from.erase(from.begin(), from.begin() + static_cast<std::ptrdiff_t>(count));
    return slice;
}

}  // namespace

void ReceiptBatcher::take(const std::string& topic, Batch& batch, bool everything,
                          std::vector<Ready>& ready) {
    // A full batch goes in slices; the remainder keeps its deadline unless
    // it is due too (`everything`). Ids and rejections never share a
    // message (contract C1).
    const std::size_t id_slice = config_.max_ids;
    const std::size_t rejection_slice = std::min(config_.max_ids, receipt::kMaxRejections);
    while (batch.ids.size() >= id_slice || (everything && !batch.ids.empty())) {
        auto ids = cut_front(batch.ids, std::min(id_slice, batch.ids.size()));
        ready.push_back(Ready{topic, receipt::render(ids), ids.size()});
    }
    while (batch.rejected.size() >= rejection_slice || (everything && !batch.rejected.empty())) {
        auto rejected = cut_front(batch.rejected, std::min(rejection_slice, batch.rejected.size()));
        ready.push_back(Ready{topic, receipt::render_rejections(rejected), rejected.size()});
    }
}

void ReceiptBatcher::flush(std::unique_lock<std::mutex>& lock, bool everything) {
    const auto now = std::chrono::steady_clock::now();
    const auto flush_after = std::chrono::milliseconds(config_.flush_ms);
    std::vector<Ready> ready;
    for (auto it = batches_.begin(); it != batches_.end();) {
        Batch& batch = it->second;
        take(it->first, batch, everything || now >= batch.first + flush_after, ready);
        if (batch.size() == 0) {
            it = batches_.erase(it);
        } else {
            ++it;
        }
    }
    for (const Ready& message : ready) queued_ -= message.entries;
    lock.unlock();  // send without the lock: offer() never waits for the network
    ReceiptCounts done;
    for (const Ready& message : ready) {
        const Status sent = sender_.send(message.topic, message.payload);
        if (sent) {
            done.messages_sent++;
            done.ids_sent += static_cast<int64_t>(message.entries);
        } else {
            done.messages_failed++;
            done.ids_dropped += static_cast<int64_t>(message.entries);
        }
    }
    lock.lock();
    counts_.messages_sent += done.messages_sent;
    counts_.ids_sent += done.ids_sent;
    counts_.messages_failed += done.messages_failed;
    counts_.ids_dropped += done.ids_dropped;
}

}  // namespace outpost::bridge
