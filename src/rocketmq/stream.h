// A byte stream to a name server or broker, plain TCP (tcp_socket.h) or TLS
// over it (tls_socket.h). Every operation is bounded by a deadline.
#ifndef OUTPOST_ROCKETMQ_STREAM_H
#define OUTPOST_ROCKETMQ_STREAM_H

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "outpost/status.h"

namespace outpost::rocketmq {

using Deadline = std::chrono::steady_clock::time_point;

class Stream {
  public:
    virtual ~Stream() = default;

    // Writes all of `data`. Fails with kTimeout or kUnavailable (peer gone);
    // an unknown number of bytes may then have been written.
    virtual Status write_all(std::string_view data, Deadline deadline) = 0;

    // Reads exactly `size` bytes into `out`. Fails with kTimeout, or with
    // kUnavailable when the peer closed the stream or an error occurred; `out`
    // then holds an unspecified prefix.
    virtual Status read_exact(char* out, std::size_t size, Deadline deadline) = 0;

    // True when the peer has closed the stream or it is in error, as seen
    // without blocking (used to notice idle connections the server shut).
    virtual bool peer_closed() = 0;

    virtual const std::string& address() const = 0;
};

}  // namespace outpost::rocketmq

#endif  // OUTPOST_ROCKETMQ_STREAM_H
