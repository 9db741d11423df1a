// Collects the eventIds the bridge may confirm, and the events it
// quarantined and may reject, and sends them back to their gateways in
// batches (the receipt contract: common/receipt_contract.h). Confirmations
// and rejections of one gateway go in separate messages (version 1 and 2,
// contract C1), so a gateway that reads only version 1 loses no
// confirmation to a rejection it cannot read.
//
// Contract with delivery: offer() never blocks on the network and never
// fails the message. It appends the id to its gateway's batch and returns;
// the thread "receipts" sends a batch when it holds max_ids ids or its
// oldest id has waited flush_ms. A batch that cannot be sent (no
// connection, refused, the queue over max_queued) is dropped and counted:
// receipts are best effort, and a gateway republishes what it did not hear
// about.
#ifndef OUTPOST_BRIDGE_MQTT_RECEIPT_BATCHER_H
#define OUTPOST_BRIDGE_MQTT_RECEIPT_BATCHER_H

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bridge/config.h"
#include "common/receipt_contract.h"
#include "outpost/status.h"

namespace outpost::bridge {

// Where receipt messages go: a paho client in production
// (receipt_sender.h), a recording fake in unit tests.
class ReceiptSender {
  public:
    virtual ~ReceiptSender() = default;
    // Starts a QoS 1 publish and returns without waiting for the PUBACK
    // (its outcome is counted by the sender). An error means nothing was
    // sent (not connected, client queue full): the batch is dropped.
    virtual Status send(const std::string& topic, const std::string& payload) = 0;
};

// Counters, as read by status reports.
struct ReceiptCounts {
    int64_t ids_offered = 0;
    int64_t ids_sent = 0;     // in messages the sender accepted
    int64_t ids_dropped = 0;  // queue full, or their message could not be sent
    int64_t messages_sent = 0;
    int64_t messages_failed = 0;
    // Negative receipts: quarantined events offered for a rejection (each
    // also counts in ids_offered and then in ids_sent or ids_dropped).
    int64_t rejections_offered = 0;
};

// Owns the thread "receipts", which runs from the constructor until the
// destructor; the destructor sends what is queued (one attempt each) and
// joins it. `sender` is borrowed and must outlive the batcher.
class ReceiptBatcher final {
  public:
    ReceiptBatcher(const ReceiptsConfig& config, ReceiptSender& sender);
    ~ReceiptBatcher();
    ReceiptBatcher(const ReceiptBatcher&) = delete;
    ReceiptBatcher& operator=(const ReceiptBatcher&) = delete;

    // Queues `event_id` for the receipt topic `topic`. Thread-safe; never
    // blocks on I/O.
    void offer(const std::string& topic, const std::string& event_id);
    // Queues a negative receipt for the receipt topic `topic`, as offer().
    void offer_rejection(const std::string& topic, receipt::Rejection rejection);

    ReceiptCounts counts() const;

  private:
    struct Batch {
        std::vector<std::string> ids;
        std::vector<receipt::Rejection> rejected;
        std::chrono::steady_clock::time_point first;  // when its first entry arrived
        std::size_t size() const { return ids.size() + rejected.size(); }
        bool full(std::size_t max_ids) const {
            return ids.size() >= max_ids ||
                   rejected.size() >= std::min(max_ids, receipt::kMaxRejections);
        }
    };
    // One receipt message ready to go.
    struct Ready {
        std::string topic;
        std::string payload;
        std::size_t entries = 0;
    };
    // Queues one entry (an id or a rejection) under the lock.
    template <typename Add>
    void enqueue(const std::string& topic, Add add);
    // Moves the full slices (or, with `everything`, all) of `batch` to `ready`.
    void take(const std::string& topic, Batch& batch, bool everything, std::vector<Ready>& ready);
    void run();
    // Sends and removes the batches that are full, due, or all of them.
    void flush(std::unique_lock<std::mutex>& lock, bool everything);

    const ReceiptsConfig config_;
    ReceiptSender& sender_;

    mutable std::mutex mutex_;
    std::condition_variable changed_;
    std::map<std::string, Batch> batches_;  // by topic; guarded by mutex_
    std::size_t queued_ = 0;                // ids in batches_; guarded by mutex_
    ReceiptCounts counts_;                  // guarded by mutex_
    bool stopping_ = false;                 // guarded by mutex_
    std::thread thread_;                    // started last
};

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_MQTT_RECEIPT_BATCHER_H
