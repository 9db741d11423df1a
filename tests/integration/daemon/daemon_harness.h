// What the outpostd tests share: the real outpostd binary (path from
// $OUTPOSTD) in a child process with its own environment, a configuration
// file written for one test, a notify socket standing in for systemd, and a
// plain HTTP GET for the metrics endpoint. posix_spawn, not fork: no test
// code ever runs in the child.
#ifndef OUTPOST_TESTS_DAEMON_HARNESS_H
#define OUTPOST_TESTS_DAEMON_HARNESS_H

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "mosquitto_fixture.h"
#include "temp_dir.h"

extern char** environ;

namespace outpost::testing {

inline std::string outpostd_binary() {
    const char* binary = std::getenv("OUTPOSTD");
    if (binary == nullptr || *binary == '\0') throw std::runtime_error("OUTPOSTD is not set");
    return binary;
}

// A configuration for `dir` and `broker` with fast reconnects, so outcomes
// come quickly (no test asserts on timing). Tests patch it as they need.
inline nlohmann::json daemon_config(const TempDir& dir, const Mosquitto& broker) {
    return {
        {"gateway_id", "gw-daemon"},
        {"database", {{"path", dir.file("outbox.db")}}},
        {"broker", {{"uri", broker.uri()}, {"connect_timeout_ms", 2000}}},
        {"publisher",
         {{"reconnect_initial_ms", 50}, {"reconnect_max_ms", 400}, {"lease_retry_ms", 50}}},
        {"ingest", {{"socket", dir.file("alarms.sock")}}},
        {"logging", {{"level", "debug"}}},
    };
}

// One outpostd process; SIGKILLed by the destructor if still running.
class DaemonProcess final {
  public:
    // Writes `config` to <dir>/outpostd.json and starts outpostd with the
    // current environment plus `extra_env` ("NAME=value"); output goes to
    // <dir>/outpostd.log.
    DaemonProcess(const TempDir& dir, const nlohmann::json& config,
                  const std::vector<std::string>& extra_env = {})
        : log_path_(dir.file("outpostd.log")) {
        const std::string config_path = dir.file("outpostd.json");
        std::ofstream(config_path) << config.dump(2);
        std::vector<std::string> env;
        for (char** item = environ; *item != nullptr; ++item) env.emplace_back(*item);
        env.insert(env.end(), extra_env.begin(), extra_env.end());
        std::vector<char*> envp;
        for (auto& item : env) envp.push_back(item.data());
        envp.push_back(nullptr);
        std::vector<std::string> words = {outpostd_binary(), "--config", config_path};
        std::vector<char*> argv;
        for (auto& word : words) argv.push_back(word.data());
        argv.push_back(nullptr);

        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 1, log_path_.c_str(),
                                         O_WRONLY | O_CREAT | O_APPEND, 0644);
        posix_spawn_file_actions_adddup2(&actions, 1, 2);
        const int rc = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), envp.data());
        posix_spawn_file_actions_destroy(&actions);
        if (rc != 0) throw std::runtime_error("spawn outpostd: " + std::string(std::strerror(rc)));
    }
    ~DaemonProcess() {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }
    DaemonProcess(const DaemonProcess&) = delete;
    DaemonProcess& operator=(const DaemonProcess&) = delete;

    std::string log() const { return read_file(log_path_); }
    // The process id while it runs, -1 after ended() saw it end.
    pid_t pid() const { return pid_; }
    // The log on one line, for INFO (a TAP message must not span lines).
    std::string log_line() const {
        std::string text = log();
        for (char& c : text) c = c == '\n' ? '|' : c;
        return text;
    }
    bool logged(const std::string& text) const { return log().find(text) != std::string::npos; }

    // SIGTERM, then waits up to `limit` for the exit. The exit code, or
    // nullopt when it did not exit in time (it is SIGKILLed then).
    std::optional<int> terminate(std::chrono::milliseconds limit = std::chrono::seconds(30)) {
        if (pid_ <= 0) return exit_code_;  // ended already; never kill(-1, ...)
        ::kill(pid_, SIGTERM);
        const auto deadline = std::chrono::steady_clock::now() + limit;
        while (std::chrono::steady_clock::now() < deadline) {
            if (auto code = ended()) return code;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return std::nullopt;
    }

    // Without waiting: the exit code (128 + N for signal N) once the process
    // has ended, nullopt while it runs.
    std::optional<int> ended() {
        if (pid_ <= 0) return exit_code_;
        int status = 0;
        if (::waitpid(pid_, &status, WNOHANG) != pid_) return std::nullopt;
        pid_ = -1;
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return exit_code_;
    }

  private:
    std::string log_path_;
    pid_t pid_ = -1;
    std::optional<int> exit_code_;
};

// An AF_UNIX datagram socket bound where NOTIFY_SOCKET will point: what
// systemd receives from a Type=notify service.
class NotifyListener final {
  public:
    // `path` may name an abstract socket: "@name".
    explicit NotifyListener(std::string path) : path_(std::move(path)) {
        fd_ = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        sockaddr_un address{};
        address.sun_family = AF_UNIX;
        if (path_.size() >= sizeof address.sun_path) throw std::runtime_error("path too long");
        std::memcpy(address.sun_path, path_.data(), path_.size());
        socklen_t length = sizeof address;
        if (path_[0] == '@') {
            address.sun_path[0] = '\0';
            length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path_.size());
        }
        if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&address), length) != 0) {
            throw std::runtime_error("cannot bind the notify socket " + path_);
        }
    }
    ~NotifyListener() { ::close(fd_); }
    NotifyListener(const NotifyListener&) = delete;
    NotifyListener& operator=(const NotifyListener&) = delete;

    const std::string& path() const { return path_; }

    // Receives datagrams for `window` (window 0: only those already
    // queued); returns them in arrival order.
    std::vector<std::string> collect(std::chrono::milliseconds window) {
        std::vector<std::string> messages;
        const auto deadline = std::chrono::steady_clock::now() + window;
        for (;;) {
            const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                deadline - std::chrono::steady_clock::now());
            pollfd ready{fd_, POLLIN, 0};
            if (::poll(&ready, 1, static_cast<int>(std::max<int64_t>(left.count(), 0))) <= 0) {
                if (left.count() <= 0) return messages;
                continue;
            }
            char buffer[4096];
            const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
            if (n > 0) messages.emplace_back(buffer, static_cast<size_t>(n));
        }
    }

  private:
    std::string path_;
    int fd_ = -1;
};

// How many of `messages` contain the line `assignment` ("WATCHDOG=1").
inline int count_assignments(const std::vector<std::string>& messages,
                             const std::string& assignment) {
    int count = 0;
    for (const std::string& message : messages) {
        std::stringstream lines(message);
        for (std::string line; std::getline(lines, line);) count += line == assignment ? 1 : 0;
    }
    return count;
}

struct HttpAnswer {
    int status = 0;
    std::string headers;
    std::string body;
};

// GET `target` from 127.0.0.1:`port` with HTTP/1.1 and Connection: close.
inline HttpAnswer http_get(int port, const std::string& target) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        if (fd >= 0) ::close(fd);
        throw std::runtime_error("cannot connect to the metrics port " + std::to_string(port));
    }
    const std::string request =
        "GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
    (void)!::send(fd, request.data(), request.size(), MSG_NOSIGNAL);
    std::string reply;
    char buffer[4096];
    for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;)
        reply.append(buffer, static_cast<size_t>(n));
    ::close(fd);
    HttpAnswer answer;
    const size_t split = reply.find("\r\n\r\n");
    if (reply.rfind("HTTP/1.1 ", 0) != 0 || split == std::string::npos) return answer;
    answer.status = std::atoi(reply.c_str() + 9);
    answer.headers = reply.substr(0, split);
    answer.body = reply.substr(split + 4);
    return answer;
}

// The value of the unlabelled sample `name` (or `name{labels}`) in a
// Prometheus exposition, nullopt when absent.
inline std::optional<double> metric_value(const std::string& exposition, const std::string& name) {
    std::stringstream lines(exposition);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind(name + " ", 0) == 0) return std::atof(line.c_str() + name.size() + 1);
    }
    return std::nullopt;
}

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_DAEMON_HARNESS_H
