// Binding rules: a socket file can outlive its process (SIGKILL, power cut
// on a persistent /run). connect() tells a stale one (ECONNREFUSED) from a
// live one, so a second daemon never steals a running daemon's socket and a
// restarted one never fails on its predecessor's leftovers.
#include "telemetry/datagram_socket.h"

#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace outpost::telemetry {
namespace {

std::string errno_text(const std::string& what, const std::string& path) {
    return what + " " + path + ": " + std::strerror(errno);
}

// Checks what is at `path` now and removes it when it is a stale socket.
Status clear_stale_socket(const std::string& path, const sockaddr_un& address) {
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0) {
        if (errno == ENOENT) return Status::ok();
        return Status::error(StatusCode::kIoError, errno_text("inspecting", path));
    }
    if (!S_ISSOCK(info.st_mode)) {
        return Status::error(StatusCode::kInvalidArgument,
                             path + " exists and is not a socket; remove it or pick another path");
    }
    const int probe = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (probe < 0) return Status::error(StatusCode::kIoError, errno_text("probing", path));
    const int rc = ::connect(probe, reinterpret_cast<const sockaddr*>(&address), sizeof address);
    const int probe_errno = errno;
    ::close(probe);
    if (rc == 0) {
        return Status::error(StatusCode::kBusy,
                             "telemetry socket " + path + " is served by another live process");
    }
    if (probe_errno != ECONNREFUSED) {
        errno = probe_errno;
        return Status::error(StatusCode::kIoError, errno_text("probing", path));
    }
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
        return Status::error(StatusCode::kIoError, errno_text("removing stale socket", path));
    }
    return Status::ok();
}

}  // namespace

Result<std::unique_ptr<DatagramSocket>> DatagramSocket::bind(const std::string& path,
                                                             size_t max_datagram_bytes) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.empty() || path.size() >= sizeof address.sun_path) {
        return Status::error(StatusCode::kInvalidArgument,
                             "telemetry socket path must be 1-" +
                                 std::to_string(sizeof address.sun_path - 1) + " bytes: '" + path +
                                 "'");
    }
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    Status cleared = clear_stale_socket(path, address);
    if (!cleared) return cleared;

    const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return Status::error(StatusCode::kIoError, errno_text("creating socket for", path));
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        Status error = Status::error(StatusCode::kIoError, errno_text("binding", path));
        ::close(fd);
        return error;
    }
    // After bind: the umask must not decide who may write telemetry.
    if (::chmod(path.c_str(), 0660) != 0) {
        Status error = Status::error(StatusCode::kIoError, errno_text("chmod 0660", path));
        ::close(fd);
        ::unlink(path.c_str());
        return error;
    }
    const int wake = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (wake < 0) {
        Status error = Status::error(StatusCode::kIoError, errno_text("eventfd for", path));
        ::close(fd);
        ::unlink(path.c_str());
        return error;
    }
    return std::unique_ptr<DatagramSocket>(new DatagramSocket(path, fd, wake, max_datagram_bytes));
}

DatagramSocket::DatagramSocket(std::string path, int socket_fd, int wake_fd,
                               size_t max_datagram_bytes)
    : path_(std::move(path)),
      socket_fd_(socket_fd),
      wake_fd_(wake_fd),
      buffer_bytes_(max_datagram_bytes) {}

DatagramSocket::~DatagramSocket() {
    stop();
}

void DatagramSocket::run(Handler handler, std::function<void()> on_start) {
    thread_ = std::thread([this, handler = std::move(handler), on_start = std::move(on_start)] {
        ::pthread_setname_np(::pthread_self(), "outpost-tele-dg");
        on_start();
        receive_loop(handler);
    });
}

void DatagramSocket::stop() {
    if (socket_fd_ < 0) return;
    const uint64_t one = 1;
    if (::write(wake_fd_, &one, sizeof one) < 0) {
        // Cannot happen with a fresh eventfd; the join below would hang.
        std::abort();
    }
    if (thread_.joinable()) thread_.join();
    ::close(socket_fd_);
    ::close(wake_fd_);
    socket_fd_ = -1;
    wake_fd_ = -1;
    ::unlink(path_.c_str());
}

std::string DatagramSocket::last_error() const {
    std::lock_guard<std::mutex> lock(error_mutex_);
    return last_error_;
}

void DatagramSocket::receive_loop(const Handler& handler) {
    std::vector<char> buffer(buffer_bytes_);
    pollfd watched[2] = {{socket_fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
    for (;;) {
        if (::poll(watched, 2, -1) < 0) {
            if (errno == EINTR) continue;
            std::lock_guard<std::mutex> lock(error_mutex_);
            last_error_ = errno_text("polling", path_);
            return;
        }
        if (watched[1].revents != 0) return;
        // MSG_TRUNC: the return value is the datagram's real length.
        const ssize_t length = ::recv(socket_fd_, buffer.data(), buffer.size(), MSG_TRUNC);
        if (length < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            std::lock_guard<std::mutex> lock(error_mutex_);
            last_error_ = errno_text("receiving on", path_);
            continue;
        }
        const size_t received = static_cast<size_t>(length);
        const bool truncated = received > buffer.size();
        handler(std::string_view(buffer.data(), truncated ? buffer.size() : received), truncated);
    }
}

}  // namespace outpost::telemetry
