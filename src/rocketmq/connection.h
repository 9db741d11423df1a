// One remoting connection to a name server or broker: synchronous request /
// response, matched by opaque, with a bound on every call.
//
// The stream is dropped whenever its state is uncertain (timeout, I/O error,
// malformed frame) and re-established by the next call; a connection the
// server closed while idle (RocketMQ closes after 120 s) is noticed before
// the next request and replaced transparently.
#ifndef OUTPOST_ROCKETMQ_CONNECTION_H
#define OUTPOST_ROCKETMQ_CONNECTION_H

#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "outpost/status.h"
#include "rocketmq/client_security.h"
#include "rocketmq/frame.h"
#include "rocketmq/stream.h"

namespace outpost::rocketmq {

class Connection final {
  public:
    // Does not connect yet; the first invoke() does. `security` says whether
    // requests are signed and the stream is TLS (default: neither).
    explicit Connection(std::string address, ClientSecurity security = {});

    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    // Sends `request` (its opaque is overwritten) and returns the response
    // carrying the same opaque; responses to earlier, abandoned requests and
    // requests initiated by the server are skipped. Thread-safe: concurrent
    // calls are serialized.
    // Success means a well-formed response arrived; its code may still be an
    // error the caller must interpret.
    // Fails with kTimeout when `timeout` passes (the request may or may not
    // have been processed), kUnavailable when connecting, writing or reading
    // failed (same uncertainty once the request was written), and
    // kInvalidArgument when the request cannot be encoded or the server sent a
    // malformed frame, kPermissionDenied when TLS refused the server's
    // certificate. After any failure the stream is closed.
    Result<RemotingCommand> invoke(RemotingCommand request, std::chrono::milliseconds timeout);

    const std::string& address() const { return address_; }

  private:
    // Makes sure socket_ is usable, reconnecting when the peer closed it.
    // Sets *reused to whether an existing stream is kept. Requires mutex_.
    Status ensure_connected(Deadline deadline, bool* reused);
    // Reads frames until the response to `opaque` arrives. Requires mutex_.
    Result<RemotingCommand> read_response(std::int32_t opaque, Deadline deadline);

    const std::string address_;
    const ClientSecurity security_;
    std::mutex mutex_;
    std::unique_ptr<Stream> socket_;  // guarded by mutex_; null when closed
    std::int32_t next_opaque_ = 1;    // guarded by mutex_
};

}  // namespace outpost::rocketmq

#endif  // OUTPOST_ROCKETMQ_CONNECTION_H
