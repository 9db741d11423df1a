// The watchdog rule: systemd restarts a service that stops sending
// WATCHDOG=1 within WATCHDOG_USEC. The main thread is always fine; what can
// hang is the publisher thread (a stuck SQLite call, a paho call that never
// returns). So every WATCHDOG_USEC/2 we look at the publisher's loop
// heartbeat and ping only if it moved since the last look: a publisher that
// stops going round stops the pings, and systemd restarts us.
#include "daemon/run.h"

#include <signal.h>

#include <algorithm>
#include <cstring>

#include "common/sd_notify.h"
#include "common/service_log.h"
#include "common/stop_signals.h"
#include "daemon/daemon.h"
#include "daemon/start_warnings.h"

namespace outpost::daemon {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// Returns the signal that ended the wait, or 0 at `until`.
int wait_for_signal(const sigset_t& signals, Clock::time_point until) {
    const auto left =
        std::max(milliseconds(1), std::chrono::duration_cast<milliseconds>(until - Clock::now()));
    const timespec timeout{static_cast<time_t>(left.count() / 1000),
                           static_cast<long>(left.count() % 1000) * 1000000L};
    const int signal_number = sigtimedwait(&signals, nullptr, &timeout);
    return signal_number > 0 ? signal_number : 0;
}

void notify(const Notifier& notifier, const std::string& message) {
    if (Status sent = notifier.send(message); !sent.is_ok()) log_warning(sent.message());
}

class Watchdog final {
  public:
    Watchdog(const Notifier& notifier, const Daemon& daemon, milliseconds connect_timeout)
        : notifier_(notifier),
          daemon_(daemon),
          interval_(std::chrono::duration_cast<milliseconds>(notifier.watchdog_interval() / 2)) {
        if (!enabled()) return;
        log_info("systemd watchdog: checking the publisher every " +
                 std::to_string(interval_.count()) + " ms");
        // One connection attempt holds the publisher loop; a watchdog
        // shorter than that restarts a daemon that is merely reconnecting.
        if (interval_ < connect_timeout) {
            log_warning("WatchdogSec/2 (" + std::to_string(interval_.count()) +
                        " ms) is below broker.connect_timeout_ms (" +
                        std::to_string(connect_timeout.count()) +
                        " ms): a slow connection attempt will get outpostd restarted");
        }
    }
    bool enabled() const { return interval_.count() > 0; }
    Clock::time_point due() const { return enabled() ? next_ : Clock::time_point::max(); }

    void tick() {
        if (!enabled() || Clock::now() < next_) return;
        next_ = Clock::now() + interval_;
        const uint64_t heartbeat = daemon_.publisher_heartbeat();
        if (heartbeat != last_heartbeat_) {
            last_heartbeat_ = heartbeat;
            if (stalled_) log_info("the publisher loop moves again; WATCHDOG=1 resumed");
            stalled_ = false;
            notify(notifier_, "WATCHDOG=1");
        } else if (!stalled_) {
            stalled_ = true;
            log_error("the publisher loop has not advanced for " +
                      std::to_string(interval_.count()) +
                      " ms; withholding WATCHDOG=1 so that systemd restarts outpostd");
        }
    }

  private:
    const Notifier& notifier_;
    const Daemon& daemon_;
    const milliseconds interval_;
    Clock::time_point next_ = Clock::now();
    uint64_t last_heartbeat_ = UINT64_MAX;  // the first look always pings
    bool stalled_ = false;
};

}  // namespace

int run_daemon(const DaemonConfig& config) {
    // Before any thread starts: they all inherit the mask.
    const sigset_t stop_signals = block_stop_signals();

    Notifier notifier;
    for (const std::string& warning : weakened_security_warnings(config)) log_warning(warning);
    if (!config.publisher.receipts) {
        log_info("publisher.receipts is off: an alarm is final once the MQTT broker acknowledges "
                 "it, and a broker or bridge that loses it afterwards loses it");
    }
    Result<std::unique_ptr<Daemon>> started = Daemon::start(config);
    if (!started.is_ok()) {
        log_error(started.status().to_string());
        notify(notifier, "STATUS=failed: " + started.status().message());
        return kExitFailure;
    }
    Daemon& daemon = **started;
    notify(notifier, "READY=1\nSTATUS=" + status_line(daemon.snapshot()));
    log_info("ready");

    Watchdog watchdog(notifier, daemon, config.publisher.endpoint.connect_timeout);
    const milliseconds textfile_interval =
        config.metrics.textfile.empty() ? milliseconds::max() : config.metrics.textfile_interval;
    auto next_status = Clock::now() + config.status_interval;
    auto next_textfile = Clock::now();
    int signal_number = 0;
    while (signal_number == 0) {
        watchdog.tick();
        if (Clock::now() >= next_status) {
            next_status = Clock::now() + config.status_interval;
            const std::string line = status_line(daemon.snapshot());
            notify(notifier, "STATUS=" + line);
            log_debug(line);
        }
        if (textfile_interval != milliseconds::max() && Clock::now() >= next_textfile) {
            next_textfile = Clock::now() + textfile_interval;
            daemon.write_textfile();
        }
        auto until = std::min({watchdog.due(), next_status, Clock::now() + milliseconds(1000)});
        if (textfile_interval != milliseconds::max()) until = std::min(until, next_textfile);
        signal_number = wait_for_signal(stop_signals, until);
    }
    log_info(std::string("stopping on ") + strsignal(signal_number));
    notify(notifier, "STOPPING=1\nSTATUS=draining the in-flight window");
    daemon.stop();
    log_info("stopped");
    return kExitOk;
}

}  // namespace outpost::daemon
