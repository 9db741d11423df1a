#include "publish/lease.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace outpost::publish {

std::string lease_path_for(const std::string& database_path) {
    return database_path + ".lock";
}

Result<bool> FileLease::try_acquire() {
    if (fd_ >= 0) return true;
    // O_CLOEXEC: a child we exec must not inherit (and keep alive) our lock.
    int fd = ::open(path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        return Status::error(StatusCode::kIoError,
                             "cannot open lease file " + path_ + ": " + std::strerror(errno));
    }
    int rc;
    do {
        rc = ::flock(fd, LOCK_EX | LOCK_NB);
    } while (rc != 0 && errno == EINTR);
    if (rc != 0) {
        int error = errno;
        ::close(fd);
        if (error == EWOULDBLOCK) return false;
        return Status::error(StatusCode::kIoError,
                             "cannot lock lease file " + path_ + ": " + std::strerror(error));
    }
    fd_ = fd;
    return true;
}

void FileLease::release() {
    if (fd_ < 0) return;
    ::close(fd_);  // closing the last descriptor drops the flock
    fd_ = -1;
}

}  // namespace outpost::publish
