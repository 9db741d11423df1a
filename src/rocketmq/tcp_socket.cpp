#include "rocketmq/tcp_socket.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace outpost::rocketmq {
namespace {

Status unavailable(const std::string& address, const std::string& what, int error) {
    return Status::error(StatusCode::kUnavailable,
                         what + " " + address + ": " + std::strerror(error));
}

Status timed_out(const std::string& address, const std::string& what) {
    return Status::error(StatusCode::kTimeout, what + " " + address + " timed out");
}

// Milliseconds left until `deadline` for poll(); 0 once it passed.
int poll_timeout(Deadline deadline) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
        return 0;
    }
    return left.count() > 60000 ? 60000 : static_cast<int>(left.count()) + 1;
}

// Waits for `events`; returns 1 when ready, 0 on deadline, -1 on error (errno set).
int wait_for(int fd, short events, Deadline deadline) {
    for (;;) {
        pollfd entry{fd, events, 0};
        int timeout = poll_timeout(deadline);
        int ready = poll(&entry, 1, timeout);
        if (ready > 0) {
            return 1;
        }
        if (ready < 0 && errno != EINTR) {
            return -1;
        }
        if (ready == 0 && std::chrono::steady_clock::now() >= deadline) {
            return 0;
        }
    }
}

// Waits until `fd` is ready for `events`; OK when it is, else the error that
// ends the operation (`action` names it: "writing to", "reading from", ...).
Status await_ready(int fd, short events, Deadline deadline, const std::string& address,
                   const std::string& action) {
    int ready = wait_for(fd, events, deadline);
    if (ready > 0) {
        return Status::ok();
    }
    if (ready == 0) {
        return timed_out(address, action);
    }
    return unavailable(address, "error while " + action, errno);
}

}  // namespace

bool split_address(const std::string& address, std::string* host, std::string* port) {
    std::size_t colon = address.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 >= address.size()) {
        return false;
    }
    *host = address.substr(0, colon);
    *port = address.substr(colon + 1);
    if (host->size() >= 2 && host->front() == '[' && host->back() == ']') {
        *host = host->substr(1, host->size() - 2);
    }
    return true;
}

Result<std::unique_ptr<TcpSocket>> TcpSocket::connect(const std::string& address,
                                                      Deadline deadline) {
    std::string host;
    std::string port;
    if (!split_address(address, &host, &port)) {
        return Status::error(StatusCode::kInvalidArgument,
                             "address \"" + address + "\" is not HOST:PORT");
    }
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
    addrinfo* found = nullptr;
    if (getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0 || found == nullptr) {
        return Status::error(StatusCode::kInvalidArgument,
                             "address \"" + address + "\" is not a numeric IP and port");
    }
    std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> info(found, &freeaddrinfo);

    int fd = socket(info->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return unavailable(address, "cannot create a socket for", errno);
    }
    std::unique_ptr<TcpSocket> stream(new TcpSocket(fd, address));
    int one = 1;
    // Requests are small and synchronous: Nagle would add up to 40 ms each.
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (::connect(fd, info->ai_addr, info->ai_addrlen) != 0) {
        if (errno != EINPROGRESS) {
            return unavailable(address, "cannot connect to", errno);
        }
        Status ready = await_ready(fd, POLLOUT, deadline, address, "connecting to");
        if (!ready.is_ok()) {
            return ready;
        }
        int error = 0;
        socklen_t length = sizeof(error);
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) {
            error = errno;
        }
        if (error != 0) {
            return unavailable(address, "cannot connect to", error);
        }
    }
    return stream;
}

TcpSocket::~TcpSocket() {
    close(fd_);
}

Status TcpSocket::write_all(std::string_view data, Deadline deadline) {
    while (!data.empty()) {
        // MSG_NOSIGNAL: a peer that went away must be an error value, not SIGPIPE.
        ssize_t written = send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
        if (written > 0) {
            data.remove_prefix(static_cast<std::size_t>(written));
            continue;
        }
        if (written < 0 && errno == EINTR) {
            continue;
        }
        if (written < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
            return unavailable(address_, "cannot write to", errno);
        }
        Status ready = await_ready(fd_, POLLOUT, deadline, address_, "writing to");
        if (!ready.is_ok()) {
            return ready;
        }
    }
    return Status::ok();
}

Result<std::size_t> TcpSocket::read_some(char* out, std::size_t capacity, Deadline deadline) {
    for (;;) {
        ssize_t got = recv(fd_, out, capacity, 0);
        if (got > 0) {
            return static_cast<std::size_t>(got);
        }
        if (got == 0) {
            return Status::error(StatusCode::kUnavailable,
                                 "connection to " + address_ + " closed by the peer");
        }
        if (errno == EINTR) {
            continue;
        }
        if (errno != EAGAIN && errno != EWOULDBLOCK) {
            return unavailable(address_, "cannot read from", errno);
        }
        Status ready = await_ready(fd_, POLLIN, deadline, address_, "reading from");
        if (!ready.is_ok()) {
            return ready;
        }
    }
}

Status TcpSocket::read_exact(char* out, std::size_t size, Deadline deadline) {
    while (size > 0) {
        Result<std::size_t> got = read_some(out, size, deadline);
        if (!got.is_ok()) {
            return got.status();
        }
        out += *got;
        size -= *got;
    }
    return Status::ok();
}

Status TcpSocket::wait_readable(Deadline deadline) {
    return await_ready(fd_, POLLIN, deadline, address_, "waiting for data from");
}

void TcpSocket::shutdown() {
    ::shutdown(fd_, SHUT_RDWR);
}

bool TcpSocket::peer_closed() {
    pollfd entry{fd_, POLLIN, 0};
    if (poll(&entry, 1, 0) <= 0) {
        return false;
    }
    if ((entry.revents & (POLLERR | POLLHUP | POLLNVAL)) != 0) {
        return true;
    }
    char byte;
    ssize_t got = recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return got == 0 || (got < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR);
}

}  // namespace outpost::rocketmq
