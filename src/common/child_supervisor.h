// Supervise a child process: the one home for "a service runs part of its
// work in a process of its own and keeps it running". Used by outpostd for
// outpost-telemetry (daemon/telemetry_supervisor.h) and by outpost-bridge
// for its session processes (bridge/processes/session_processes.h).
//
// Promises:
//  - start() spawns the process and returns once it wrote its first report
//    line (on_report returned true) or failed: a child that cannot start
//    makes the service's start fail.
//  - The child writes one report line (common/child_report.h) at a time to
//    the file descriptor named by the two arguments the supervisor appends
//    to the command, "--stats-fd" "3"; everything else (its log) goes to
//    the service's stderr, inherited. Each line reaches on_report.
//  - When the child dies later (a crash, a kill) on_exit is called and it
//    is started again after a pause from the one backoff policy
//    (common/backoff.h): capped exponential with jitter, counted from
//    consecutive short lives (under kHealthyLife), so a child that keeps
//    crashing costs little CPU.
//  - The child gets SIGTERM when the supervising thread ends
//    (PR_SET_PDEATHSIG), so a SIGKILLed service leaves no orphan. It starts
//    with no signal blocked, SIGPIPE at its default, and none of the
//    service's descriptors above 3.
//
// Threads: one supervising thread per child (named `thread_name`) spawns,
// reads the reports and restarts; on_report and on_exit run on it, never
// under the supervisor's lock. stop() ends it (SIGTERM to the child,
// SIGKILL after stop_timeout).
#ifndef OUTPOST_COMMON_CHILD_SUPERVISOR_H
#define OUTPOST_COMMON_CHILD_SUPERVISOR_H

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "outpost/status.h"

namespace outpost {

enum class ChildLogLevel { kInfo, kWarning, kError };

struct ChildSupervisorOptions {
    // What the log lines and errors call the child ("telemetry process").
    std::string name = "child process";
    // At most 15 characters (pthread_setname_np).
    std::string thread_name = "child-sup";
    // The program and its arguments (argv[0] included); "--stats-fd" "3" is
    // appended.
    std::vector<std::string> command;
    // Restart pacing (common/backoff.h, jittered).
    std::chrono::milliseconds restart_initial{500}, restart_max{30000};
    // How long start() waits for the first report.
    std::chrono::milliseconds start_timeout{15000};
    // How long stop() waits after SIGTERM before SIGKILL.
    std::chrono::milliseconds stop_timeout{5000};
    // Appended to the restart warning (" (alarms are not affected)").
    std::string restart_note;
    // One report line, without its newline; true when it was a report
    // (a line in the child's format).
    std::function<bool(std::string_view line)> on_report;
    // A life ended (its process reaped); called before any restart.
    std::function<void()> on_exit;
    // Where the supervisor's own log lines go (the service's logger).
    std::function<void(ChildLogLevel, const std::string&)> log;
};

// ChildSupervisorOptions::log for a program whose log has one function per
// level (common/service_log.h).
std::function<void(ChildLogLevel, const std::string&)> child_log_to(
    void (*info)(const std::string&), void (*warning)(const std::string&),
    void (*error)(const std::string&));

class ChildSupervisor final {
  public:
    // A life at least this long resets the restart backoff.
    static constexpr std::chrono::seconds kHealthyLife{10};

    // Spawns the child and waits for its first report. Errors (nothing left
    // running): kInvalidArgument without a command, kIoError when it cannot
    // be spawned, kUnavailable when it exited or stayed silent before its
    // first report (its own log lines say why).
    static Result<std::unique_ptr<ChildSupervisor>> start(ChildSupervisorOptions options);

    ~ChildSupervisor();  // stop()
    ChildSupervisor(const ChildSupervisor&) = delete;
    ChildSupervisor& operator=(const ChildSupervisor&) = delete;

    // Restarts after the first start. Thread-safe.
    uint64_t restarts() const;
    // The running child's id, -1 between lives. Thread-safe.
    pid_t pid() const;

    // SIGTERM to the child; no restart after it; does not wait. Lets a
    // service stop several children at once before waiting for each.
    // Idempotent, thread-safe.
    void request_stop();
    // request_stop(), then waits for the child (SIGKILL after stop_timeout)
    // and ends the thread. Idempotent.
    void stop();

  private:
    explicit ChildSupervisor(ChildSupervisorOptions options);
    void log(ChildLogLevel level, const std::string& text) const;
    // Spawns one process; its pid and the read end of its report pipe.
    Status spawn(pid_t* pid, int* report_fd);
    // Reads reports until the child closes the pipe; true when at least one
    // report arrived.
    bool read_reports(int report_fd);
    // Waits for `pid` to end and reaps it. Returns the wait status.
    int reap(pid_t pid);
    void supervise(pid_t pid, int report_fd);
    // Waits up to `delay` unless stop is requested; false on stop.
    bool pause(std::chrono::milliseconds delay);

    const ChildSupervisorOptions options_;
    std::thread thread_;

    mutable std::mutex mutex_;
    std::condition_variable changed_;  // a report, an exit, or stop
    bool stopping_ = false;            // guarded by mutex_
    bool reported_ = false;            // guarded by mutex_: this life reported
    bool exited_ = false;              // guarded by mutex_: this life ended
    pid_t pid_ = -1;                   // guarded by mutex_
    uint64_t restarts_ = 0;            // guarded by mutex_
    std::mutex stop_mutex_;            // serialises stop() callers
};

// The path of the running program (/proc/self/exe), for starting a copy of
// it or a program installed beside it; empty when it cannot be read. After
// the file was replaced on disk the kernel appends " (deleted)".
std::string own_program();

}  // namespace outpost

#endif  // OUTPOST_COMMON_CHILD_SUPERVISOR_H
