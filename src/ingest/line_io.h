// Newline-framed reading and writing on a stream socket, shared by the
// ingestion server and its clients.
#ifndef OUTPOST_INGEST_LINE_IO_H
#define OUTPOST_INGEST_LINE_IO_H

#include <chrono>
#include <cstddef>
#include <string>

namespace outpost::ingest {

// Reads lines from a borrowed descriptor, keeping bytes that arrived after a
// newline for the next call. Not thread-safe: one reader per descriptor.
class LineReader final {
  public:
    enum class Outcome {
        kLine,      // `line` holds one line without its '\n'
        kClosed,    // the peer closed (a partial last line is dropped)
        kTooLong,   // more than max_bytes arrived without a newline
        kTimedOut,  // no complete line within the timeout
        kStopping,  // `wake_fd` became readable
        kError,     // read or poll failed (errno is kept)
    };

    // `wake_fd` (or -1) is polled together with `fd`: when it is readable,
    // next() returns kStopping unless a complete line is already buffered.
    LineReader(int fd, size_t max_bytes, int wake_fd = -1)
        : fd_(fd), wake_fd_(wake_fd), max_bytes_(max_bytes) {}

    Outcome next(std::string& line, std::chrono::milliseconds timeout);

  private:
    bool take_buffered_line(std::string& line);

    const int fd_;
    const int wake_fd_;
    const size_t max_bytes_;
    std::string buffer_;
};

// Writes all of `data` (no SIGPIPE). False if the peer is gone or write fails.
bool write_all(int fd, const std::string& data);

}  // namespace outpost::ingest

#endif  // OUTPOST_INGEST_LINE_IO_H
