#include "daemon/telemetry_supervisor.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>

#include "common/backoff.h"
#include "common/random_source.h"
#include "daemon/log.h"
#include "daemon/telemetry_stats_line.h"

namespace outpost::daemon {
namespace {

using std::chrono::milliseconds;
using Steady = std::chrono::steady_clock;

// The descriptor the process writes its reports to.
constexpr int kReportFd = 3;

// What a dead life's counters add to the totals.
void add_counters(TelemetryStats& to, const TelemetryStats& from) {
    to.offered += from.offered;
    to.published += from.published;
    to.coalesced += from.coalesced;
    to.dropped_ring_full += from.dropped_ring_full;
    to.dropped_oversize += from.dropped_oversize;
    to.dropped_invalid += from.dropped_invalid;
    // What was still in its ring went with it.
    to.dropped_disconnected += from.dropped_disconnected + from.ring_depth;
    to.datagrams += from.datagrams;
    to.reconnects += from.reconnects;
}

std::string describe_exit(int wait_status) {
    if (WIFEXITED(wait_status))
        return "exited with status " + std::to_string(WEXITSTATUS(wait_status));
    if (WIFSIGNALED(wait_status))
        return "was killed by signal " + std::to_string(WTERMSIG(wait_status));
    return "ended";
}

}  // namespace

Result<std::unique_ptr<TelemetrySupervisor>> TelemetrySupervisor::start(
    const TelemetrySupervisorOptions& options) {
    if (options.command.empty()) {
        return Status::error(StatusCode::kInvalidArgument, "telemetry process: no command");
    }
    std::unique_ptr<TelemetrySupervisor> supervisor(new TelemetrySupervisor(options));
    TelemetrySupervisor* self = supervisor.get();
    // The thread spawns: PR_SET_PDEATHSIG follows the thread that forked.
    std::mutex spawned_mutex;
    std::condition_variable spawned_cv;
    std::optional<Status> spawned;
    self->thread_ = std::thread([&, self] {
        ::pthread_setname_np(::pthread_self(), "outpost-tele-sup");
        pid_t pid = -1;
        int report_fd = -1;
        Status status = self->spawn(&pid, &report_fd);
        {
            // Notified under the lock: start() may return, destroying the
            // condition variable, as soon as the lock is released.
            std::lock_guard<std::mutex> lock(spawned_mutex);
            spawned = status;
            spawned_cv.notify_all();
        }
        if (status.is_ok()) self->supervise(pid, report_fd);
    });
    {
        std::unique_lock<std::mutex> lock(spawned_mutex);
        spawned_cv.wait(lock, [&] { return spawned.has_value(); });
    }
    if (!spawned->is_ok()) {
        self->thread_.join();
        return *spawned;
    }
    std::unique_lock<std::mutex> lock(self->mutex_);
    const bool answered = self->changed_.wait_for(
        lock, options.start_timeout, [self] { return self->reported_ || self->exited_; });
    if (!answered || !self->reported_) {
        lock.unlock();
        supervisor->stop();
        return Status::error(StatusCode::kUnavailable,
                             answered ? "the telemetry process ended before it was ready (its "
                                        "log lines say why)"
                                      : "the telemetry process did not report within " +
                                            std::to_string(options.start_timeout.count()) + " ms");
    }
    return supervisor;
}

TelemetrySupervisor::TelemetrySupervisor(TelemetrySupervisorOptions options)
    : options_(std::move(options)) {}

TelemetrySupervisor::~TelemetrySupervisor() {
    stop();
}

Status TelemetrySupervisor::spawn(pid_t* pid, int* report_fd) {
    std::vector<std::string> words = options_.command;
    words.push_back("--stats-fd");
    words.push_back(std::to_string(kReportFd));
    std::vector<char*> argv;
    for (std::string& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
        return Status::error(StatusCode::kIoError,
                             std::string("telemetry process: pipe: ") + std::strerror(errno));
    }
    const pid_t parent = ::getpid();
    const pid_t child = ::fork();
    if (child < 0) {
        const int error = errno;
        ::close(pipe_fds[0]);
        ::close(pipe_fds[1]);
        return Status::error(StatusCode::kIoError,
                             std::string("telemetry process: fork: ") + std::strerror(error));
    }
    if (child == 0) {
        // Only async-signal-safe calls until exec.
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() != parent) ::_exit(1);  // outpostd died before prctl
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);  // outpostd blocks SIGTERM
        ::signal(SIGPIPE, SIG_DFL);
        if (pipe_fds[1] == kReportFd) {
            ::fcntl(kReportFd, F_SETFD, 0);  // dup2 onto itself would keep O_CLOEXEC
        } else if (::dup2(pipe_fds[1], kReportFd) != kReportFd) {
            ::_exit(127);
        }
        ::close_range(kReportFd + 1, ~0U, 0);  // none of outpostd's sockets or files
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    ::close(pipe_fds[1]);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        pid_ = child;
        reported_ = false;
        exited_ = false;
        current_ = TelemetryStats{};
    }
    *pid = child;
    *report_fd = pipe_fds[0];
    log_info("telemetry process " + std::to_string(child) + " started (" + options_.command[0] +
             ")");
    return Status::ok();
}

bool TelemetrySupervisor::read_reports(int report_fd) {
    bool any = false;
    std::string pending;
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(report_fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return any;  // the process closed the pipe: it is ending
        pending.append(buffer, static_cast<size_t>(n));
        std::optional<TelemetryStats> latest;
        for (size_t end; (end = pending.find('\n')) != std::string::npos;
             pending.erase(0, end + 1)) {
            if (auto stats = parse_telemetry_stats(std::string_view(pending).substr(0, end))) {
                latest = std::move(stats);
            }
        }
        if (pending.size() > 65536) pending.clear();  // not our format: ignore it
        if (!latest) continue;
        any = true;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            current_ = std::move(*latest);
            reported_ = true;
        }
        changed_.notify_all();
    }
}

int TelemetrySupervisor::reap(pid_t pid) {
    // Wait without reaping first: while pid_ names it, the pid cannot be
    // reused, so stop() may signal it under mutex_.
    siginfo_t info{};
    while (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) != 0 &&
           errno == EINTR) {
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        pid_ = -1;
    }
    int wait_status = 0;
    while (::waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
    }
    {
        std::lock_guard<std::mutex> lock(mutex_);
        add_counters(base_, current_);
        if (!current_.last_error.empty()) base_.last_error = current_.last_error;
        current_ = TelemetryStats{};
        exited_ = true;
    }
    changed_.notify_all();
    return wait_status;
}

void TelemetrySupervisor::supervise(pid_t pid, int report_fd) {
    Backoff backoff =
        Backoff::jittered(options_.restart_initial, options_.restart_max, seeded_random(0));
    int64_t short_lives = 0;
    for (bool first = true;; first = false) {
        const auto born = Steady::now();
        const bool reported = read_reports(report_fd);
        ::close(report_fd);
        const int wait_status = reap(pid);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (stopping_) return;
        }
        if (first && !reported) {
            log_error("telemetry process " + std::to_string(pid) + " " +
                      describe_exit(wait_status) + " before it was ready");
            return;  // start() fails
        }
        short_lives = Steady::now() - born >= kHealthyLife ? 1 : short_lives + 1;
        const milliseconds delay = backoff.delay(short_lives);
        log_warning("telemetry process " + std::to_string(pid) + " " + describe_exit(wait_status) +
                    "; starting it again in " + std::to_string(delay.count()) +
                    " ms (alarms are not affected)");
        for (;;) {
            if (!pause(delay)) return;
            Status spawned = spawn(&pid, &report_fd);
            if (spawned.is_ok()) break;
            log_error(spawned.message());
        }
        std::lock_guard<std::mutex> lock(mutex_);
        ++restarts_;
    }
}

bool TelemetrySupervisor::pause(milliseconds delay) {
    std::unique_lock<std::mutex> lock(mutex_);
    return !changed_.wait_for(lock, delay, [this] { return stopping_; });
}

TelemetryStats TelemetrySupervisor::stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    TelemetryStats stats = base_;
    add_counters(stats, current_);
    stats.dropped_disconnected -= current_.ring_depth;  // a live ring still holds them
    stats.ring_depth = current_.ring_depth;
    stats.connected = pid_ > 0 && current_.connected;
    if (!current_.last_error.empty()) stats.last_error = current_.last_error;
    return stats;
}

uint64_t TelemetrySupervisor::restarts() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return restarts_;
}

pid_t TelemetrySupervisor::pid() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return pid_;
}

void TelemetrySupervisor::stop() {
    std::lock_guard<std::mutex> serial(stop_mutex_);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
        if (pid_ > 0) ::kill(pid_, SIGTERM);  // under mutex_: not reaped yet
    }
    changed_.notify_all();
    if (!thread_.joinable()) return;
    // The thread returns once the process has ended; SIGKILL if it hangs.
    std::unique_lock<std::mutex> lock(mutex_);
    if (!changed_.wait_for(lock, kStopTimeout, [this] { return pid_ < 0; })) {
        log_warning("telemetry process " + std::to_string(pid_) +
                    " did not stop on SIGTERM; killing it");
        ::kill(pid_, SIGKILL);
    }
    lock.unlock();
    thread_.join();
}

}  // namespace outpost::daemon
