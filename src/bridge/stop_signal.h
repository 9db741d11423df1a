// A one-way "stop now" flag that sleeping threads wake up for. The bridge's
// pauses (retry backoff, holding a refused message) are its wait_for calls,
// so a test derives a stop signal on a fake clock and lets pauses pass
// without sleeping.
#ifndef OUTPOST_BRIDGE_STOP_SIGNAL_H
#define OUTPOST_BRIDGE_STOP_SIGNAL_H

#include <chrono>
#include <condition_variable>
#include <mutex>

namespace outpost::bridge {

// Thread-safe.
class StopSignal {
  public:
    virtual ~StopSignal() = default;

    void request_stop() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopped_ = true;
        }
        changed_.notify_all();
    }

    bool stop_requested() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return stopped_;
    }

    // Sleeps up to `pause`; true when a stop was requested (before or during).
    virtual bool wait_for(std::chrono::milliseconds pause) const {
        std::unique_lock<std::mutex> lock(mutex_);
        return changed_.wait_for(lock, pause, [this] { return stopped_; });
    }

  private:
    mutable std::mutex mutex_;
    mutable std::condition_variable changed_;
    bool stopped_ = false;  // guarded by mutex_
};

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_STOP_SIGNAL_H
