#include "bridge/receipt_batcher.h"

#include <pthread.h>

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

void ReceiptBatcher::offer(const std::string& topic, const std::string& event_id) {
    bool wake = false;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        counts_.ids_offered++;
        if (queued_ >= config_.max_queued) {
            counts_.ids_dropped++;
            return;
        }
        Batch& batch = batches_[topic];
        if (batch.ids.empty()) {
            batch.first = std::chrono::steady_clock::now();
            wake = true;  // a new deadline
        }
        batch.ids.push_back(event_id);
        queued_++;
        if (batch.ids.size() >= config_.max_ids) wake = true;
    }
    if (wake) changed_.notify_one();
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
            full = full || batch.ids.size() >= config_.max_ids;
        }
        if (!full && std::chrono::steady_clock::now() < deadline) {
            changed_.wait_until(lock, deadline);
        }
        flush(lock, false);
    }
}

void ReceiptBatcher::flush(std::unique_lock<std::mutex>& lock, bool everything) {
    const auto now = std::chrono::steady_clock::now();
    const auto flush_after = std::chrono::milliseconds(config_.flush_ms);
    std::vector<std::pair<std::string, std::vector<std::string>>> ready;
    for (auto it = batches_.begin(); it != batches_.end();) {
        Batch& batch = it->second;
        // A full batch goes in slices of max_ids; the remainder keeps its
        // deadline unless it is due too.
        while (batch.ids.size() >= config_.max_ids) {
            std::vector<std::string> slice(batch.ids.begin(), batch.ids.begin() + config_.max_ids);
            batch.ids.erase(batch.ids.begin(), batch.ids.begin() + config_.max_ids);
            ready.emplace_back(it->first, std::move(slice));
        }
        if (!batch.ids.empty() && (everything || now >= batch.first + flush_after)) {
            ready.emplace_back(it->first, std::move(batch.ids));
            batch.ids.clear();
        }
        if (batch.ids.empty()) {
            it = batches_.erase(it);
        } else {
            ++it;
        }
    }
    for (const auto& [topic, ids] : ready) queued_ -= ids.size();
    lock.unlock();  // send without the lock: offer() never waits for the network
    ReceiptCounts done;
    for (const auto& [topic, ids] : ready) {
        const Status sent = sender_.send(topic, receipt::render(ids));
        if (sent) {
            done.messages_sent++;
            done.ids_sent += static_cast<int64_t>(ids.size());
        } else {
            done.messages_failed++;
            done.ids_dropped += static_cast<int64_t>(ids.size());
        }
    }
    lock.lock();
    counts_.messages_sent += done.messages_sent;
    counts_.ids_sent += done.ids_sent;
    counts_.messages_failed += done.messages_failed;
    counts_.ids_dropped += done.ids_dropped;
}

}  // namespace outpost::bridge
