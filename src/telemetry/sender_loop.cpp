// The sender thread "outpost-tele": connect with capped exponential backoff
// and jitter, then take the oldest message from the ring and publish it at
// QoS 0, one at a time. While disconnected it only reconnects; offer() keeps
// filling the ring, which drops its oldest messages when full.
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>

#include "common/backoff.h"
#include "telemetry/lane_impl.h"
#include "telemetry/send_pacer.h"

namespace outpost {
namespace {

// How long to wait before retrying a message paho's full queue refused.
constexpr std::chrono::milliseconds kBusyRetry{1};

}  // namespace

bool lower_thread_priority() {
    // Linux nice values are per thread: this one only. Failure (a seccomp
    // filter, say) leaves the default priority, which is still correct.
    return ::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), kTelemetryNice) == 0;
}

void telemetry::LaneImpl::sender_loop() {
    ::pthread_setname_np(::pthread_self(), "outpost-tele");
    lower_thread_priority();
    Backoff backoff =
        Backoff::jittered(options_.endpoint.reconnect_initial, options_.endpoint.reconnect_max,
                          seeded_random(options_.jitter_seed));
    // Bursts of up to a tenth of a second's worth.
    const uint32_t rate = options_.max_send_rate;
    telemetry::SendPacer pacer(rate, rate / 10, std::chrono::steady_clock::now());
    int64_t failures = 0;
    bool ever_connected = false;
    for (;;) {
        {
            std::lock_guard<std::mutex> lock(ring_mutex_);
            if (stopping_) return;
            connection_lost_ = false;
        }
        if (!sender_->connected()) {
            connected_.store(false, std::memory_order_relaxed);
            Status connected = sender_->connect();
            if (!connected) {
                set_error(connected.message());
                if (!pause(backoff.delay(++failures))) return;
                continue;
            }
            failures = 0;
            if (ever_connected) reconnects_.fetch_add(1, std::memory_order_relaxed);
            ever_connected = true;
            connected_.store(true, std::memory_order_relaxed);
        }
        while (auto message = next_message()) {
            if (!wait_for_send_slot(pacer)) {
                dropped_disconnected_.fetch_add(1, std::memory_order_relaxed);  // stopping
                break;
            }
            send(*message);
        }
    }
}

std::optional<telemetry::TelemetryMessage> telemetry::LaneImpl::next_message() {
    std::unique_lock<std::mutex> lock(ring_mutex_);
    ring_changed_.wait(lock, [&] { return stopping_ || connection_lost_ || ring_.size() > 0; });
    if (stopping_ || connection_lost_) return std::nullopt;
    return ring_.pop();
}

void telemetry::LaneImpl::send(const telemetry::TelemetryMessage& message) {
    const std::string topic = topic_prefix_ + message.key;
    std::string error;
    for (;;) {
        switch (sender_->publish(topic, message.payload, &error)) {
            case telemetry::SendOutcome::kSent:
                published_.fetch_add(1, std::memory_order_relaxed);
                return;
            case telemetry::SendOutcome::kBusy:
                if (!pause(kBusyRetry)) {
                    dropped_disconnected_.fetch_add(1, std::memory_order_relaxed);
                    return;
                }
                continue;
            case telemetry::SendOutcome::kDisconnected:
                set_error(error);
                dropped_disconnected_.fetch_add(1, std::memory_order_relaxed);
                return;
            case telemetry::SendOutcome::kRejected:
                set_error(error);
                dropped_invalid_.fetch_add(1, std::memory_order_relaxed);
                return;
        }
    }
}

bool telemetry::LaneImpl::wait_for_send_slot(telemetry::SendPacer& pacer) {
    for (;;) {
        const auto now = std::chrono::steady_clock::now();
        const std::chrono::microseconds wait = pacer.wait_needed(now);
        if (wait.count() == 0) {
            pacer.take(now);
            return true;
        }
        if (!pause(wait)) return false;
    }
}

bool telemetry::LaneImpl::pause(std::chrono::microseconds delay) {
    std::unique_lock<std::mutex> lock(ring_mutex_);
    ring_changed_.wait_for(lock, delay, [&] { return stopping_; });
    return !stopping_;
}

}  // namespace outpost
