#include "common/metrics_server.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "common/prometheus_text.h"

namespace outpost {
namespace {

constexpr size_t kMaxRequestBytes = 8192;

using Clock = std::chrono::steady_clock;

// Waits until `fd` is ready for `events` or `deadline` passed (false then).
bool wait_ready(int fd, short events, Clock::time_point deadline) {
    for (;;) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) return false;
        pollfd one{fd, events, 0};
        const int ready = poll(&one, 1, static_cast<int>(left.count()));
        if (ready < 0 && errno == EINTR) continue;
        return ready > 0;
    }
}

// Writes `data` to the non-blocking `fd` until done, the peer went away or
// `deadline` passed (nothing to do in either case).
void write_all(int fd, const std::string& data, Clock::time_point deadline) {
    size_t done = 0;
    while (done < data.size()) {
        const ssize_t n = send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) {
            if (!wait_ready(fd, POLLOUT, deadline)) return;
            continue;
        }
        if (n <= 0) return;
        done += static_cast<size_t>(n);
    }
}

std::string response(const char* status, const char* content_type, const std::string& body) {
    return std::string("HTTP/1.1 ") + status + "\r\nContent-Type: " + content_type +
           "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" +
           body;
}

}  // namespace

Result<std::unique_ptr<MetricsServer>> MetricsServer::start(
    const ListenAddress& address, Render render, std::chrono::milliseconds connection_deadline) {
    const int fd = socket(address.address.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return Status::error(StatusCode::kIoError,
                             std::string("metrics socket: ") + std::strerror(errno));
    const int on = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (bind(fd, reinterpret_cast<const sockaddr*>(&address.address), address.length) != 0 ||
        listen(fd, 8) != 0) {
        const int error = errno;
        close(fd);
        return Status::error(StatusCode::kIoError, std::string("metrics endpoint cannot listen: ") +
                                                       std::strerror(error));
    }
    int wake[2];
    if (pipe2(wake, O_CLOEXEC) != 0) {
        close(fd);
        return Status::error(StatusCode::kIoError, std::string("pipe: ") + std::strerror(errno));
    }
    std::unique_ptr<MetricsServer> server(
        new MetricsServer(fd, wake[0], wake[1], std::move(render), connection_deadline));
    server->thread_ = std::thread([raw = server.get()] { raw->serve(); });
    return server;
}

MetricsServer::MetricsServer(int listen_fd, int wake_read, int wake_write, Render render,
                             std::chrono::milliseconds connection_deadline)
    : listen_fd_(listen_fd),
      wake_read_(wake_read),
      wake_write_(wake_write),
      render_(std::move(render)),
      connection_deadline_(connection_deadline),
      bound_address_(describe_bound_address(listen_fd)) {}

MetricsServer::~MetricsServer() {
    stop();
}

void MetricsServer::stop() {
    if (!thread_.joinable()) return;
    const char byte = 0;
    (void)!write(wake_write_, &byte, 1);
    thread_.join();
    close(listen_fd_);
    close(wake_read_);
    close(wake_write_);
}

void MetricsServer::serve() {
    pthread_setname_np(pthread_self(), "outpost-metrics");
    for (;;) {
        pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_read_, POLLIN, 0}};
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            // Only ENOMEM gets here; both programs log to stderr.
            std::fprintf(stderr, "metrics endpoint: poll: %s\n", std::strerror(errno));
            return;
        }
        if (fds[1].revents != 0) return;
        const int client = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (client < 0) continue;
        answer(client);
        close(client);
    }
}

void MetricsServer::answer(int client) const {
    // One deadline for the whole exchange: a per-call timeout would let a
    // client that sends one byte just inside it hold the endpoint for hours.
    const Clock::time_point deadline = Clock::now() + connection_deadline_;
    std::string request;
    char buffer[1024];
    while (request.find("\r\n\r\n") == std::string::npos && request.size() < kMaxRequestBytes) {
        const ssize_t n = recv(client, buffer, sizeof buffer, 0);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN) {
            if (!wait_ready(client, POLLIN, deadline)) return;  // too slow: closed unanswered
            continue;
        }
        if (n <= 0) break;
        request.append(buffer, static_cast<size_t>(n));
    }
    const std::string line = request.substr(0, request.find("\r\n"));
    const size_t space = line.find(' ');
    const std::string method = line.substr(0, space);
    std::string target = space == std::string::npos ? "" : line.substr(space + 1);
    target = target.substr(0, target.find(' '));
    target = target.substr(0, target.find('?'));
    if (method != "GET" && method != "HEAD") {
        write_all(client, response("405 Method Not Allowed", "text/plain", "GET /metrics only\n"),
                  deadline);
    } else if (target != "/metrics") {
        write_all(client, response("404 Not Found", "text/plain", "try /metrics\n"), deadline);
    } else {
        std::string reply = response("200 OK", kPrometheusContentType, render_());
        if (method == "HEAD") reply.resize(reply.find("\r\n\r\n") + 4);
        write_all(client, reply, deadline);
    }
}

}  // namespace outpost
