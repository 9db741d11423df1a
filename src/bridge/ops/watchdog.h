// outpost-bridge under systemd (Type=notify): STATUS= lines with the
// figures, and WATCHDOG=1 only while forwarding is not stalled (the rule is
// in bridge/ops/stall_detector.h). A bridge that stops forwarding with work in
// hand stops the pings, and systemd restarts it after WatchdogSec; the
// broker then redelivers what it had not acknowledged.
//
// READY=1 and STOPPING=1 are sent by run_bridge (main.cpp) through the same
// Notifier. Outside systemd (no NOTIFY_SOCKET) the watchdog starts no thread.
#ifndef OUTPOST_BRIDGE_OPS_WATCHDOG_H
#define OUTPOST_BRIDGE_OPS_WATCHDOG_H

#include <chrono>
#include <string>
#include <thread>

#include "bridge/ops/bridge_stats.h"
#include "bridge/stop_signal.h"
#include "common/sd_notify.h"

namespace outpost::bridge {

// One short line for STATUS= ("forwarded 120, quarantined 2, in hand 1,
// RocketMQ failing").
std::string status_summary(const BridgeFigures& figures);

// Owns the thread "watchdog" (when NOTIFY_SOCKET is set), started by the
// constructor; the destructor stops and joins it. It looks every
// WatchdogSec/2 (without a watchdog: every `status_interval`).
// `notifier` and `source` are borrowed and must outlive it. Stalled means
// any one of source.lanes() stalled: with session processes, one stuck
// process starves the watchdog though the others forward.
class Watchdog final {
  public:
    Watchdog(const Notifier& notifier, const FiguresSource& source,
             std::chrono::milliseconds stall_limit, std::chrono::milliseconds status_interval);
    ~Watchdog();
    Watchdog(const Watchdog&) = delete;
    Watchdog& operator=(const Watchdog&) = delete;

  private:
    void run();

    const Notifier& notifier_;
    const FiguresSource& source_;
    const std::chrono::milliseconds stall_limit_;
    const std::chrono::milliseconds period_;
    StopSignal stop_;
    std::thread thread_;
};

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_OPS_WATCHDOG_H
