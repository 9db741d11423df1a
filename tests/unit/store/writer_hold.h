// Group-commit test helpers: a gate, a held writer, and a wait for the
// queue, shared by the store's group-commit and commit-wait tests.
#ifndef OUTPOST_TESTS_UNIT_STORE_WRITER_HOLD_H
#define OUTPOST_TESTS_UNIT_STORE_WRITER_HOLD_H

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "outpost/status.h"
#include "store/store_core.h"

namespace outpost::testing {

// A one-shot gate a thread waits on until the test opens it.
class Gate final {
  public:
    void open() {
        std::lock_guard<std::mutex> lock(mutex_);
        open_ = true;
        cv_.notify_all();
    }
    // False if the gate stayed shut for 30 s (the test then fails, not hangs).
    bool wait() {
        std::unique_lock<std::mutex> lock(mutex_);
        return cv_.wait_for(lock, std::chrono::seconds(30), [&] { return open_; });
    }

  private:
    std::mutex mutex_;
    std::condition_variable cv_;
    bool open_ = false;
};

// Waits until `count` ops are in the core's queue (with a deadline).
inline bool wait_for_queue(store::StoreCore& core, size_t count) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (core.queued_ops() != count) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::yield();
    }
    return true;
}

// Occupies the writer: one op that leads a batch of its own and waits inside
// the open transaction until released, so that ops submitted meanwhile queue
// behind it and form the next batch together.
class WriterHold final {
  public:
    explicit WriterHold(store::StoreCore& core)
        : thread_([this, &core] {
              store::WriteOp op;
              op.isolated = true;
              op.apply = [this](store::BatchContext&) {
                  entered_.open();
                  return release_.wait() ? Status::ok()
                                         : Status::error(StatusCode::kTimeout, "never released");
              };
              status_ = core.submit(op);
              finished_.open();
          }) {
        entered_.wait();
    }
    ~WriterHold() {
        release_.open();
        if (thread_.joinable()) thread_.join();
    }
    // Lets the held batch commit; returns its status. The hold's thread is
    // joined only by the destructor, so while the hold exists no new thread
    // gets its id (the commit wait tells callers apart by thread).
    Status release() {
        release_.open();
        if (!finished_.wait()) return Status::error(StatusCode::kTimeout, "the hold never ended");
        return status_;
    }

  private:
    Gate entered_;
    Gate release_;
    Gate finished_;
    Status status_;
    std::thread thread_;
};

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_UNIT_STORE_WRITER_HOLD_H
