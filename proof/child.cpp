#include "proof/child.h"

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

namespace outpost::torture {

std::string ChildExit::describe() const {
    if (!error.empty()) return error;
    if (exited) return "exited with status " + std::to_string(code);
    return std::string("killed by signal ") + std::to_string(signal) + " (" + strsignal(signal) +
           ")";
}

ChildExit run_child(const std::vector<std::string>& args,
                    const std::vector<std::pair<std::string, std::string>>& env,
                    faults::EvidenceLog& log) {
    ChildExit result;
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
        result.error = std::string("pipe: ") + std::strerror(errno);
        return result;
    }
    std::vector<std::string> argv_text = {"outpost-torture"};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    argv_text.push_back("--evidence-fd");
    argv_text.push_back(std::to_string(fds[1]));
    std::vector<char*> argv;
    for (std::string& arg : argv_text) argv.push_back(arg.data());
    argv.push_back(nullptr);

    const pid_t pid = ::fork();
    if (pid < 0) {
        result.error = std::string("fork: ") + std::strerror(errno);
        ::close(fds[0]);
        ::close(fds[1]);
        return result;
    }
    if (pid == 0) {
        // Child: only async-signal-safe calls until exec (setenv is not, but
        // the parent is single-threaded, so no lock can be held).
        ::fcntl(fds[1], F_SETFD, 0);  // the evidence fd survives exec
        for (const auto& [name, value] : env) ::setenv(name.c_str(), value.c_str(), 1);
        ::execv("/proc/self/exe", argv.data());
        ::_exit(127);
    }
    ::close(fds[1]);
    std::string error;
    if (!log.read_all(fds[0], &error)) result.error = error;
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) {
        result.exited = true;
        result.code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        result.signal = WTERMSIG(status);
    }
    return result;
}

std::string run_command(const std::string& command, int* status) {
    std::string output;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) {
        if (status != nullptr) *status = -1;
        return output;
    }
    char buffer[65536];
    for (size_t got; (got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) {
        output.append(buffer, got);
    }
    const int ended = ::pclose(pipe);
    if (status != nullptr) *status = ended;
    return output;
}

bool poll_until(const std::function<bool()>& done, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return true;
}

std::string make_scratch_dir(const std::string& parent) {
    std::string base = parent;
    if (base.empty()) {
        const char* tmp = std::getenv("TMPDIR");
        base = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
    }
    std::string pattern = base + "/outpost-torture-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) return "";
    return pattern;
}

bool make_dir(const std::string& path) {
    return ::mkdir(path.c_str(), 0755) == 0 || errno == EEXIST;
}

void remove_tree(const std::string& path) {
    ::nftw(
        path.c_str(),
        [](const char* name, const struct stat*, int, struct FTW*) { return ::remove(name); }, 16,
        FTW_DEPTH | FTW_PHYS);
}

}  // namespace outpost::torture
