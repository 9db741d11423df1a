#include "ingest/listen_socket.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace outpost::ingest {

namespace {

Status errno_error(const std::string& what, const std::string& path) {
    return Status::error(StatusCode::kIoError, what + " " + path + ": " + std::strerror(errno));
}

// Decides what to do with a file already at `path`: OK to (re)bind,
// kBusy when someone listens, kInvalidArgument when it is not a socket.
Status clear_stale_socket(const std::string& path, const sockaddr_un& address) {
    struct stat info {};
    if (::lstat(path.c_str(), &info) != 0) {
        if (errno == ENOENT) return Status::ok();
        return errno_error("cannot inspect", path);
    }
    if (!S_ISSOCK(info.st_mode)) {
        return Status::error(StatusCode::kInvalidArgument,
                             path + " exists and is not a socket; refusing to replace it");
    }
    int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (probe < 0) return errno_error("socket() for probing", path);
    int rc = ::connect(probe, reinterpret_cast<const sockaddr*>(&address), sizeof address);
    int connect_errno = errno;
    ::close(probe);
    if (rc == 0) {
        return Status::error(StatusCode::kBusy, "another outpostd listens on " + path +
                                                    "; stop it or choose another socket path");
    }
    if (connect_errno != ECONNREFUSED) {
        errno = connect_errno;
        return errno_error("cannot probe existing socket", path);
    }
    // Nobody listens: a socket file left by a process that died.
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
        return errno_error("cannot remove stale socket", path);
    }
    return Status::ok();
}

}  // namespace

Status unix_address(const std::string& path, sockaddr_un& address) {
    std::memset(&address, 0, sizeof address);
    address.sun_family = AF_UNIX;
    if (path.empty()) return Status::error(StatusCode::kInvalidArgument, "empty socket path");
    if (path.size() >= sizeof address.sun_path) {
        return Status::error(StatusCode::kInvalidArgument,
                             "socket path longer than " +
                                 std::to_string(sizeof address.sun_path - 1) + " bytes: " + path);
    }
    std::memcpy(address.sun_path, path.data(), path.size());
    return Status::ok();
}

Result<std::unique_ptr<ListenSocket>> ListenSocket::open(const std::string& path, unsigned mode,
                                                         int backlog) {
    sockaddr_un address{};
    if (Status status = unix_address(path, address); !status) return status;
    if (Status status = clear_stale_socket(path, address); !status) return status;
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return errno_error("socket() for", path);
    if (::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        Status status = errno == EADDRINUSE ? Status::error(StatusCode::kBusy,
                                                            "another outpostd listens on " + path +
                                                                " (it appeared while starting)")
                                            : errno_error("cannot bind", path);
        ::close(fd);
        return status;
    }
    // Before listen(): nobody can connect while the mode is still the umask's.
    struct stat info {};
    if (::chmod(path.c_str(), mode) != 0 || ::stat(path.c_str(), &info) != 0 ||
        ::listen(fd, backlog) != 0) {
        Status status = errno_error("cannot set up socket", path);
        ::close(fd);
        ::unlink(path.c_str());
        return status;
    }
    return std::unique_ptr<ListenSocket>(new ListenSocket(path, fd, info.st_dev, info.st_ino));
}

ListenSocket::~ListenSocket() {
    close();
}

void ListenSocket::close() {
    if (fd_ < 0) return;
    ::close(fd_);
    fd_ = -1;
    struct stat info {};
    if (::lstat(path_.c_str(), &info) == 0 && info.st_dev == device_ && info.st_ino == inode_) {
        ::unlink(path_.c_str());
    }
}

}  // namespace outpost::ingest
