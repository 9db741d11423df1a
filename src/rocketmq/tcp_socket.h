// A blocking-free TCP stream: every connect, read and write is bounded by a
// deadline (non-blocking socket + poll), so a dead peer costs at most the
// caller's timeout, never a hang.
#ifndef OUTPOST_ROCKETMQ_TCP_SOCKET_H
#define OUTPOST_ROCKETMQ_TCP_SOCKET_H

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "outpost/status.h"
#include "rocketmq/byte_stream.h"

namespace outpost::rocketmq {

class TcpSocket final : public ByteStream {
  public:
    // Connects to `address` ("127.0.0.1:9876" or "[::1]:9876"; numeric only,
    // so no DNS lookup can block). Fails with kInvalidArgument for a malformed
    // address, kTimeout when the deadline passes, kUnavailable when the peer
    // refuses or is unreachable.
    static Result<std::unique_ptr<TcpSocket>> connect(const std::string& address,
                                                      Deadline deadline);

    ~TcpSocket() override;
    TcpSocket(const TcpSocket&) = delete;
    TcpSocket& operator=(const TcpSocket&) = delete;

    // Writes all of `data`. Fails with kTimeout or kUnavailable (peer gone);
    // an unknown number of bytes may then have been written.
    Status write_all(std::string_view data, Deadline deadline) override;

    // Reads exactly `size` bytes into `out`. Fails with kTimeout, or with
    // kUnavailable when the peer closed the stream or an error occurred; `out`
    // then holds an unspecified prefix.
    Status read_exact(char* out, std::size_t size, Deadline deadline) override;

    // True when the peer has closed the stream or the socket is in error, as
    // seen without blocking (used to notice idle connections the server shut).
    bool peer_closed() const override;

    // See ByteStream (byte_stream.h).
    Status wait_readable(Deadline deadline) override;
    void shutdown() override;

    const std::string& address() const { return address_; }

  private:
    TcpSocket(int fd, std::string address) : fd_(fd), address_(std::move(address)) {}

    int fd_;
    std::string address_;
};

}  // namespace outpost::rocketmq

#endif  // OUTPOST_ROCKETMQ_TCP_SOCKET_H
