// What systemd and Prometheus see of an Outpost service, for the tests of
// outpostd and outpost-bridge: a NOTIFY_SOCKET listener, and a plain HTTP
// GET of the metrics endpoint with a reader for its samples.
#ifndef OUTPOST_TESTS_SERVICE_PROBES_H
#define OUTPOST_TESTS_SERVICE_PROBES_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace outpost::testing {

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

#endif  // OUTPOST_TESTS_SERVICE_PROBES_H
