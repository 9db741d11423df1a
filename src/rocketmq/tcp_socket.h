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

// Splits "host:port" at its last colon and unwraps a bracketed IPv6 host
// ("[::1]:9876" -> "::1", "9876"). False when either part is empty. The one
// home for the address form: the TCP connect and the TLS name check use it.
bool split_address(const std::string& address, std::string* host, std::string* port);

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

    // ByteStream (byte_stream.h): writes use MSG_NOSIGNAL (a vanished peer is
    // an error value, never SIGPIPE).
    Status write_all(std::string_view data, Deadline deadline) override;
    Status read_exact(char* out, std::size_t size, Deadline deadline) override;
    bool peer_closed() override;
    Status wait_readable(Deadline deadline) override;
    void shutdown() override;
    Result<std::size_t> read_some(char* out, std::size_t capacity, Deadline deadline) override;

    const std::string& address() const override { return address_; }

  private:
    TcpSocket(int fd, std::string address) : fd_(fd), address_(std::move(address)) {}

    int fd_;
    std::string address_;
};

}  // namespace outpost::rocketmq

#endif  // OUTPOST_ROCKETMQ_TCP_SOCKET_H
