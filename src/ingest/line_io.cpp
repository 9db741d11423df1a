#include "ingest/line_io.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace outpost::ingest {

bool LineReader::take_buffered_line(std::string& line) {
    size_t newline = buffer_.find('\n');
    if (newline == std::string::npos || newline > max_bytes_) return false;
    line.assign(buffer_, 0, newline);
    buffer_.erase(0, newline + 1);
    return true;
}

LineReader::Outcome LineReader::next(std::string& line, std::chrono::milliseconds timeout) {
    using Clock = std::chrono::steady_clock;
    const auto deadline = Clock::now() + timeout;
    char chunk[4096];
    for (;;) {
        if (take_buffered_line(line)) return Outcome::kLine;
        size_t newline = buffer_.find('\n');
        if ((newline == std::string::npos ? buffer_.size() : newline) > max_bytes_) {
            return Outcome::kTooLong;
        }
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) return Outcome::kTimedOut;
        pollfd fds[2] = {{fd_, POLLIN, 0}, {wake_fd_, POLLIN, 0}};
        int ready = ::poll(fds, wake_fd_ >= 0 ? 2 : 1, static_cast<int>(left.count()));
        if (ready < 0) {
            if (errno == EINTR) continue;
            return Outcome::kError;
        }
        if (ready == 0) continue;  // the deadline check above ends the wait
        if (wake_fd_ >= 0 && (fds[1].revents & POLLIN)) return Outcome::kStopping;
        ssize_t got = ::read(fd_, chunk, sizeof chunk);
        if (got < 0) {
            if (errno == EINTR || errno == EAGAIN) continue;
            return errno == ECONNRESET ? Outcome::kClosed : Outcome::kError;
        }
        if (got == 0) return Outcome::kClosed;
        buffer_.append(chunk, static_cast<size_t>(got));
    }
}

bool write_all(int fd, const std::string& data) {
    size_t done = 0;
    while (done < data.size()) {
        ssize_t wrote = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
        if (wrote < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        done += static_cast<size_t>(wrote);
    }
    return true;
}

}  // namespace outpost::ingest
