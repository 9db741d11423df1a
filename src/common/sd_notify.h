// The systemd notification protocol without libsystemd: one datagram per
// message to the AF_UNIX socket named by $NOTIFY_SOCKET ("@name" is an
// abstract socket). Outside systemd (no NOTIFY_SOCKET) every call is a no-op.
#ifndef OUTPOST_COMMON_SD_NOTIFY_H
#define OUTPOST_COMMON_SD_NOTIFY_H

#include <chrono>
#include <string>

#include "outpost/status.h"

namespace outpost {

// Thread-safe after construction (each send opens nothing; one socket is
// kept for the process lifetime).
class Notifier final {
  public:
    // Reads NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID once.
    Notifier();
    ~Notifier();
    Notifier(const Notifier&) = delete;
    Notifier& operator=(const Notifier&) = delete;

    bool enabled() const { return fd_ >= 0; }
    // The interval systemd expects WATCHDOG=1 within; zero when the watchdog
    // is off (or meant for another process, per WATCHDOG_PID).
    std::chrono::microseconds watchdog_interval() const { return watchdog_; }

    // Sends `message` ("READY=1", "STATUS=...", newline-separated pairs).
    // OK when sent or when not under systemd; kUnavailable with errno text,
    // also at once when the socket's queue is full: it never blocks.
    Status send(const std::string& message) const;

  private:
    int fd_ = -1;
    std::string name_;     // as NOTIFY_SOCKET gave it
    std::string address_;  // sun_path bytes ('\0' first for abstract)
    std::chrono::microseconds watchdog_{0};
};

}  // namespace outpost

#endif  // OUTPOST_COMMON_SD_NOTIFY_H
