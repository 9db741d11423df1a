// A one-shot wake-up from the batch leader to one waiting caller (group
// commit, write_batch.cpp I2): "your batch is done" or "you lead now".
#ifndef OUTPOST_STORE_WAKE_SIGNAL_H
#define OUTPOST_STORE_WAKE_SIGNAL_H

#include <condition_variable>
#include <mutex>

namespace outpost::store {

class WakeSignal final {
  public:
    enum class Kind { kNone, kDone, kLead };

    // Wakes the waiter with `kind` (not kNone). Call at most once. Anything
    // the poster wrote before post() is visible to the waiter after wait().
    // post() touches the signal only while holding its mutex, which wait()
    // takes before it returns: the waiter may destroy the signal as soon as
    // wait() has returned, while post() is still leaving unlock.
    void post(Kind kind) {
        std::lock_guard<std::mutex> lock(mutex_);
        kind_ = kind;
        // Under the mutex, for the lifetime reason above. The waiter is woken
        // by the notify and finds the mutex free a few instructions later.
        cv_.notify_one();
    }

    // Blocks until post(); returns what was posted (at once if already).
    Kind wait() {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [this] { return kind_ != Kind::kNone; });
        return kind_;
    }

  private:
    std::mutex mutex_;
    std::condition_variable cv_;
    Kind kind_ = Kind::kNone;  // guarded by mutex_
};

}  // namespace outpost::store

#endif  // OUTPOST_STORE_WAKE_SIGNAL_H
