// The byte stream a remoting Connection talks over: plain TCP
// (tcp_socket.h) or TLS over it (tls_socket.h). Every operation is bounded
// by a deadline.
//
// Concurrency contract (what Connection relies on to keep several requests
// in flight): one thread may write while another waits for or reads data.
// Writers are serialized by the caller, and so are readers; wait_readable
// may run concurrently with a write. shutdown() may be called from any
// thread at any time and wakes every blocked call.
#ifndef OUTPOST_ROCKETMQ_BYTE_STREAM_H
#define OUTPOST_ROCKETMQ_BYTE_STREAM_H

#include <chrono>
#include <cstddef>
#include <string>
#include <string_view>

#include "outpost/status.h"

namespace outpost::rocketmq {

using Deadline = std::chrono::steady_clock::time_point;

class ByteStream {
  public:
    virtual ~ByteStream() = default;

    // Writes all of `data`. Fails with kTimeout or kUnavailable (peer gone);
    // an unknown number of bytes may then have been written.
    virtual Status write_all(std::string_view data, Deadline deadline) = 0;

    // Reads exactly `size` bytes into `out`. Fails with kTimeout, or with
    // kUnavailable when the peer closed the stream or an error occurred; `out`
    // then holds an unspecified prefix.
    virtual Status read_exact(char* out, std::size_t size, Deadline deadline) = 0;

    // Reads what is available, at least 1 and at most `capacity` bytes,
    // waiting until the deadline for the first. Fails like read_exact; a
    // deadline already passed with nothing available is kTimeout.
    virtual Result<std::size_t> read_some(char* out, std::size_t capacity, Deadline deadline) = 0;

    // Waits until at least one byte can be read without blocking, or the
    // stream ended or was shut down (the next read reports that). Fails with
    // kTimeout when the deadline passes first, kUnavailable on an error.
    virtual Status wait_readable(Deadline deadline) = 0;

    // True when the peer has closed the stream or the socket is in error, as
    // seen without blocking (used to notice idle connections the server shut).
    virtual bool peer_closed() = 0;

    // Ends both directions at once: blocked and later calls fail promptly.
    virtual void shutdown() = 0;

    // host:port this stream was opened to, for messages.
    virtual const std::string& address() const = 0;
};

}  // namespace outpost::rocketmq

#endif  // OUTPOST_ROCKETMQ_BYTE_STREAM_H
