#include "common/child_supervisor.h"

#include <fcntl.h>
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

namespace outpost {
namespace {

using std::chrono::milliseconds;
using Steady = std::chrono::steady_clock;

// The descriptor the child writes its reports to.
constexpr int kReportFd = 3;

std::string describe_exit(int wait_status) {
    if (WIFEXITED(wait_status))
        return "exited with status " + std::to_string(WEXITSTATUS(wait_status));
    if (WIFSIGNALED(wait_status))
        return "was killed by signal " + std::to_string(WTERMSIG(wait_status));
    return "ended";
}

}  // namespace

std::function<void(ChildLogLevel, const std::string&)> child_log_to(
    void (*info)(const std::string&), void (*warning)(const std::string&),
    void (*error)(const std::string&)) {
    return [info, warning, error](ChildLogLevel level, const std::string& text) {
        switch (level) {
            case ChildLogLevel::kInfo:
                info(text);
                break;
            case ChildLogLevel::kWarning:
                warning(text);
                break;
            case ChildLogLevel::kError:
                error(text);
                break;
        }
    };
}

Result<std::unique_ptr<ChildSupervisor>> ChildSupervisor::start(ChildSupervisorOptions options) {
    if (options.command.empty()) {
        return Status::error(StatusCode::kInvalidArgument, options.name + ": no command");
    }
    std::unique_ptr<ChildSupervisor> supervisor(new ChildSupervisor(std::move(options)));
    ChildSupervisor* self = supervisor.get();
    // The thread spawns: PR_SET_PDEATHSIG follows the thread that forked.
    std::mutex spawned_mutex;
    std::condition_variable spawned_cv;
    std::optional<Status> spawned;
    self->thread_ = std::thread([&, self] {
        ::pthread_setname_np(::pthread_self(), self->options_.thread_name.substr(0, 15).c_str());
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
    const ChildSupervisorOptions& own = self->options_;
    std::unique_lock<std::mutex> lock(self->mutex_);
    const bool answered = self->changed_.wait_for(
        lock, own.start_timeout, [self] { return self->reported_ || self->exited_; });
    if (!answered || !self->reported_) {
        lock.unlock();
        const std::string name = own.name;
        const std::string timeout = std::to_string(own.start_timeout.count());
        supervisor->stop();
        return Status::error(StatusCode::kUnavailable,
                             answered
                                 ? "the " + name +
                                       " ended before it was ready (its log "
                                       "lines say why)"
                                 : "the " + name + " did not report within " + timeout + " ms");
    }
    return supervisor;
}

ChildSupervisor::ChildSupervisor(ChildSupervisorOptions options) : options_(std::move(options)) {}

ChildSupervisor::~ChildSupervisor() {
    stop();
}

void ChildSupervisor::log(ChildLogLevel level, const std::string& text) const {
    if (options_.log) options_.log(level, text);
}

Status ChildSupervisor::spawn(pid_t* pid, int* report_fd) {
    std::vector<std::string> words = options_.command;
    words.push_back("--stats-fd");
    words.push_back(std::to_string(kReportFd));
    std::vector<char*> argv;
    for (std::string& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
        return Status::error(StatusCode::kIoError,
                             options_.name + ": pipe: " + std::strerror(errno));
    }
    const pid_t parent = ::getpid();
    const pid_t child = ::fork();
    if (child < 0) {
        const int error = errno;
        ::close(pipe_fds[0]);
        ::close(pipe_fds[1]);
        return Status::error(StatusCode::kIoError,
                             options_.name + ": fork: " + std::strerror(error));
    }
    if (child == 0) {
        // Only async-signal-safe calls until exec.
        ::prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (::getppid() != parent) ::_exit(1);  // the service died before prctl
        sigset_t none;
        sigemptyset(&none);
        ::sigprocmask(SIG_SETMASK, &none, nullptr);  // services block SIGTERM
        ::signal(SIGPIPE, SIG_DFL);
        if (pipe_fds[1] == kReportFd) {
            ::fcntl(kReportFd, F_SETFD, 0);  // dup2 onto itself would keep O_CLOEXEC
        } else if (::dup2(pipe_fds[1], kReportFd) != kReportFd) {
            ::_exit(127);
        }
        ::close_range(kReportFd + 1, ~0U, 0);  // none of the service's sockets or files
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    ::close(pipe_fds[1]);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        pid_ = child;
        reported_ = false;
        exited_ = false;
    }
    *pid = child;
    *report_fd = pipe_fds[0];
    log(ChildLogLevel::kInfo,
        options_.name + " " + std::to_string(child) + " started (" + options_.command[0] + ")");
    return Status::ok();
}

bool ChildSupervisor::read_reports(int report_fd) {
    bool any = false;
    std::string pending;
    char buffer[4096];
    for (;;) {
        const ssize_t n = ::read(report_fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return any;  // the child closed the pipe: it is ending
        pending.append(buffer, static_cast<size_t>(n));
        bool reported = false;
        for (size_t end; (end = pending.find('\n')) != std::string::npos;
             pending.erase(0, end + 1)) {
            if (options_.on_report(std::string_view(pending).substr(0, end))) reported = true;
        }
        if (pending.size() > (1 << 20)) pending.clear();  // not a report: ignore it
        if (!reported) continue;
        any = true;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            reported_ = true;
        }
        changed_.notify_all();
    }
}

int ChildSupervisor::reap(pid_t pid) {
    // Wait without reaping first: while pid_ names it, the pid cannot be
    // reused, so request_stop() may signal it under mutex_.
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
    if (options_.on_exit) options_.on_exit();
    {
        std::lock_guard<std::mutex> lock(mutex_);
        exited_ = true;
    }
    changed_.notify_all();
    return wait_status;
}

void ChildSupervisor::supervise(pid_t pid, int report_fd) {
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
            log(ChildLogLevel::kError, options_.name + " " + std::to_string(pid) + " " +
                                           describe_exit(wait_status) + " before it was ready");
            return;  // start() fails
        }
        short_lives = Steady::now() - born >= kHealthyLife ? 1 : short_lives + 1;
        const milliseconds delay = backoff.delay(short_lives);
        log(ChildLogLevel::kWarning, options_.name + " " + std::to_string(pid) + " " +
                                         describe_exit(wait_status) + "; starting it again in " +
                                         std::to_string(delay.count()) + " ms" +
                                         options_.restart_note);
        for (;;) {
            if (!pause(delay)) return;
            Status spawned = spawn(&pid, &report_fd);
            if (spawned.is_ok()) break;
            log(ChildLogLevel::kError, spawned.message());
        }
        std::lock_guard<std::mutex> lock(mutex_);
        ++restarts_;
    }
}

bool ChildSupervisor::pause(milliseconds delay) {
    std::unique_lock<std::mutex> lock(mutex_);
    return !changed_.wait_for(lock, delay, [this] { return stopping_; });
}

uint64_t ChildSupervisor::restarts() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return restarts_;
}

pid_t ChildSupervisor::pid() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return pid_;
}

void ChildSupervisor::request_stop() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stopping_ = true;
        if (pid_ > 0) ::kill(pid_, SIGTERM);  // under mutex_: not reaped yet
    }
    changed_.notify_all();
}

void ChildSupervisor::stop() {
    std::lock_guard<std::mutex> serial(stop_mutex_);
    request_stop();
    if (!thread_.joinable()) return;
    // The thread returns once the child has ended; SIGKILL if it hangs.
    std::unique_lock<std::mutex> lock(mutex_);
    if (!changed_.wait_for(lock, options_.stop_timeout, [this] { return pid_ < 0; })) {
        log(ChildLogLevel::kWarning,
            options_.name + " " + std::to_string(pid_) + " did not stop on SIGTERM; killing it");
        ::kill(pid_, SIGKILL);
    }
    lock.unlock();
    thread_.join();
}

std::string own_program() {
    char self[4096];
    const ssize_t length = ::readlink("/proc/self/exe", self, sizeof self - 1);
    return length > 0 ? std::string(self, static_cast<std::size_t>(length)) : std::string();
}

}  // namespace outpost
