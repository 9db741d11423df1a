#include "daemon/metrics_textfile.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace outpost::daemon {
namespace {

Status failed(const std::string& path, int error) {
    return Status::error(StatusCode::kIoError,
                         "metrics textfile " + path + ": " + std::strerror(error));
}

// A new file at `path`, never through a symbolic link: O_EXCL refuses
// whatever is there (a link included), O_NOFOLLOW says so once more. A
// leftover from an earlier run is removed once (unlink removes a link, not
// its target) and the creation tried again.
int create_fresh(const std::string& path) {
    constexpr int kFlags = O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC;
    int fd = ::open(path.c_str(), kFlags, 0644);
    if (fd < 0 && errno == EEXIST && ::unlink(path.c_str()) == 0) {
        fd = ::open(path.c_str(), kFlags, 0644);
    }
    return fd;
}

bool write_all(int fd, const std::string& text) {
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += static_cast<std::size_t>(n);
    }
    return true;
}

}  // namespace

Status write_metrics_textfile(const std::string& path, const std::string& text) {
    const std::string temporary = path + ".tmp";
    const int fd = create_fresh(temporary);
    if (fd < 0) return failed(temporary, errno);
    const bool written = write_all(fd, text);
    const int write_error = errno;
    if (::close(fd) != 0 || !written) {
        ::unlink(temporary.c_str());
        return failed(temporary, write_error);
    }
    if (std::rename(temporary.c_str(), path.c_str()) != 0) {
        const int error = errno;
        ::unlink(temporary.c_str());
        return failed(path, error);
    }
    return Status::ok();
}

}  // namespace outpost::daemon
