// Inside the telemetry lane. Threads:
//  - any caller thread: offer() (short hold of ring_mutex_, no I/O);
//  - "outpost-tele": the sender loop, the only user of sender_ after start;
//  - "outpost-tele-dg": the datagram socket, which calls offer();
//  - paho's thread: on_connection_lost() (short holds of ring_mutex_ and
//    error_mutex_).
// stop() ends the socket thread first (no more datagram offers), then the
// sender thread, then empties the ring into dropped_disconnected.
#ifndef OUTPOST_TELEMETRY_LANE_IMPL_H
#define OUTPOST_TELEMETRY_LANE_IMPL_H

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include "outpost/telemetry.h"
#include "telemetry/datagram_socket.h"
#include "telemetry/mqtt_sender.h"
#include "telemetry/ring.h"
#include "telemetry/send_pacer.h"

namespace outpost {

// The lane's threads run at this nice value, so that on a busy CPU the
// scheduler prefers the alarm path (the store and the publisher).
constexpr int kTelemetryNice = 10;

// Applies kTelemetryNice to the calling thread; false (errno set) when the
// kernel refused, which leaves the default priority.
bool lower_thread_priority();

class telemetry::LaneImpl final {
  public:
    explicit LaneImpl(const TelemetryOptions& options);
    ~LaneImpl();

    // Builds the MQTT client and binds the socket; starts nothing.
    Status open();
    // Starts the threads.
    void run();

    bool offer(std::string_view key, std::string_view payload) noexcept;
    // One datagram from the socket (format: outpost/telemetry.h).
    void offer_datagram(std::string_view bytes, bool truncated) noexcept;
    TelemetryStats stats() const;
    void stop();

  private:
    void sender_loop();
    // Waits until a message is waiting, the connection is lost or stop was
    // asked; returns the oldest message, if any.
    std::optional<telemetry::TelemetryMessage> next_message();
    void send(const telemetry::TelemetryMessage& message);
    // Waits until the pacer allows one more publish and takes it. Returns
    // false on stop.
    bool wait_for_send_slot(telemetry::SendPacer& pacer);
    // Waits up to `delay` unless stop is asked. Returns false on stop.
    bool pause(std::chrono::microseconds delay);
    void on_connection_lost(const std::string& cause);
    void set_error(std::string error);

    const TelemetryOptions options_;
    const std::string topic_prefix_;  // "outpost/<gatewayId>/telemetry/"

    std::unique_ptr<telemetry::MqttSender> sender_;
    std::unique_ptr<telemetry::DatagramSocket> socket_;
    std::thread sender_thread_;

    mutable std::mutex ring_mutex_;
    std::condition_variable ring_changed_;  // a push, a lost connection, or stop
    telemetry::TelemetryRing ring_;         // guarded by ring_mutex_
    bool stopping_ = false;                 // guarded by ring_mutex_
    bool connection_lost_ = false;          // guarded by ring_mutex_

    std::mutex stop_mutex_;  // serialises stop() callers
    std::atomic<bool> accepting_{true};
    std::atomic<bool> connected_{false};
    std::atomic<uint64_t> offered_{0}, published_{0}, coalesced_{0}, dropped_ring_full_{0},
        dropped_oversize_{0}, dropped_invalid_{0}, dropped_disconnected_{0}, datagrams_{0},
        reconnects_{0};

    mutable std::mutex error_mutex_;
    std::string last_error_;  // guarded by error_mutex_
};

}  // namespace outpost

#endif  // OUTPOST_TELEMETRY_LANE_IMPL_H
