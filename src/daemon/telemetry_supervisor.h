// The telemetry lane in a process of its own, supervised by outpostd.
//
// Why a process: paho's C library (MQTTAsync, 1.3.x) keeps its send thread,
// its receive thread and its list of clients in file-scope statics
// (MQTTAsyncUtils.c: sendThread_id, receiveThread_id, the ClientStates
// list), so every MQTT client of a process shares the same two I/O threads.
// In outpostd's process a burst of telemetry publishes would queue in front
// of the alarm publisher's PUBLISHes and PUBACKs. The telemetry process
// (outpost-telemetry, telemetry_main.cpp) has its own paho, its own threads
// and its own socket to the broker; the alarm path shares nothing with it
// but the CPU, and there it runs at nice kTelemetryNice.
//
// Promises:
//  - start() spawns the process and returns once it reported that its lane
//    is running (socket bound, sender started) or failed: a telemetry
//    process that cannot start makes outpostd's start fail, as the
//    in-process lane did. The process binds the datagram socket itself, so
//    applications see the same socket and format.
//  - When the process dies later (a crash, a kill) it is started again
//    after a pause from the one backoff policy (common/backoff.h): capped
//    exponential with jitter, counted from consecutive short lives (under
//    kHealthyLife), so a process that keeps crashing costs little CPU.
//    Alarms are not affected: telemetry offered while it is down is lost
//    (best effort, DESIGN.md promise 6).
//  - stats() sums the counters of every incarnation (they only grow);
//    messages still in a dead process's ring count as dropped_disconnected.
//  - The process gets SIGTERM when outpostd's supervising thread ends
//    (PR_SET_PDEATHSIG), so a SIGKILLed outpostd leaves no telemetry orphan.
//
// Threads: the child supervisor's (common/child_supervisor.h, the one home
// for spawning, restarting and stopping a child), "outpost-tele-sup".
#ifndef OUTPOST_DAEMON_TELEMETRY_SUPERVISOR_H
#define OUTPOST_DAEMON_TELEMETRY_SUPERVISOR_H

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "common/child_supervisor.h"
#include "outpost/status.h"
#include "outpost/telemetry.h"

namespace outpost::daemon {

struct TelemetrySupervisorOptions {
    // The program and its arguments (argv[0] included). It must write
    // report lines (telemetry_stats_line.h) to the file descriptor given by
    // the last two arguments, which the supervisor appends:
    // "--stats-fd" "3".
    std::vector<std::string> command;
    // Restart pacing (common/backoff.h, jittered).
    std::chrono::milliseconds restart_initial{500}, restart_max{30000};
    // How long start() waits for the first report.
    std::chrono::milliseconds start_timeout{15000};
};

class TelemetrySupervisor final {
  public:
    // A life at least this long resets the restart backoff.
    static constexpr std::chrono::seconds kHealthyLife = ChildSupervisor::kHealthyLife;
    // stop() waits this long after SIGTERM before SIGKILL.
    static constexpr std::chrono::seconds kStopTimeout{5};

    // Spawns the process and waits for its first report. Errors (nothing
    // left running): kIoError when it cannot be spawned, kUnavailable when
    // it exited or stayed silent before its first report (its own log lines
    // say why).
    static Result<std::unique_ptr<TelemetrySupervisor>> start(
        const TelemetrySupervisorOptions& options);

    ~TelemetrySupervisor();  // stop()
    TelemetrySupervisor(const TelemetrySupervisor&) = delete;
    TelemetrySupervisor& operator=(const TelemetrySupervisor&) = delete;

    // Thread-safe. connected is false while no process runs.
    TelemetryStats stats() const;
    // Restarts after the first start. Thread-safe.
    uint64_t restarts() const { return child_->restarts(); }
    // The running process's id, -1 between lives. Thread-safe.
    pid_t pid() const { return child_->pid(); }

    // SIGTERM to the process (its lane stops, counting its ring as
    // dropped_disconnected), waits for it, ends the thread. Idempotent.
    void stop() { child_->stop(); }

  private:
    TelemetrySupervisor() = default;
    bool take_report(std::string_view line);
    void life_ended();

    std::unique_ptr<ChildSupervisor> child_;

    mutable std::mutex mutex_;
    TelemetryStats base_;     // guarded by mutex_: ended lives, summed
    TelemetryStats current_;  // guarded by mutex_: this life's last report
};

}  // namespace outpost::daemon

#endif  // OUTPOST_DAEMON_TELEMETRY_SUPERVISOR_H
