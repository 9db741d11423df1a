// One remoting connection to a name server or broker: request / response,
// matched by opaque, with a bound on every call and up to max_in_flight
// requests on the wire at once.
//
// Several threads may call invoke() at the same time: each request is
// written as soon as an in-flight slot is free, and the responses, which
// the server may send in any order, are matched to their callers by opaque.
// There is no reader thread: one waiting caller at a time reads frames and
// hands each response to its owner (leader/follower), then passes the
// reading on when its own response arrived.
//
// Failure invariant (what the bridge's ack-after-SEND_OK relies on): a call
// succeeds only with the response carrying its own opaque. When the stream
// fails (I/O error, malformed frame, a request timing out), it is dropped and
// EVERY request outstanding on it fails, whether or not the server processed
// it; none of them can succeed later. The next call connects again. A
// connection the server closed while idle (RocketMQ closes after 120 s) is
// noticed before the next request and replaced transparently.
#ifndef OUTPOST_ROCKETMQ_CONNECTION_H
#define OUTPOST_ROCKETMQ_CONNECTION_H

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "outpost/status.h"
#include "rocketmq/byte_stream.h"
#include "rocketmq/client_security.h"
#include "rocketmq/frame.h"

namespace outpost::rocketmq {

class Connection final {
  public:
    // Does not connect yet; the first invoke() does. `max_in_flight` (at
    // least 1) bounds the requests written and not yet answered; further
    // callers wait for a slot within their timeout. `security` says whether
    // requests are signed and the stream is TLS (default: neither).
    explicit Connection(std::string address, int max_in_flight = 1, ClientSecurity security = {});

    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    // Sends `request` (its opaque is overwritten) and returns the response
    // carrying the same opaque; responses to abandoned requests and requests
    // initiated by the server are skipped. Thread-safe (see above).
    // Success means a well-formed response arrived; its code may still be an
    // error the caller must interpret.
    // Fails with kTimeout when `timeout` passes (waiting for a slot, or for
    // the answer: the request may or may not have been processed),
    // kUnavailable when connecting, writing or reading failed, or another
    // request's failure dropped the stream (same uncertainty once written),
    // kInvalidArgument when the request cannot be encoded or the server
    // sent a malformed frame, and kPermissionDenied when TLS refused the
    // server's certificate.
    Result<RemotingCommand> invoke(RemotingCommand request, std::chrono::milliseconds timeout);

    const std::string& address() const { return address_; }

  private:
    // A request written and not yet answered.
    struct Pending {
        bool done = false;
        Status status;             // when done: OK or why it failed
        RemotingCommand response;  // when done with OK
    };

    // Makes sure stream_ is usable, reconnecting when the peer closed an idle
    // stream. Sets *reused to whether an existing stream is kept. Requires mutex_.
    Status ensure_connected(Deadline deadline, bool* reused);
    // Registers a slot for `opaque` and writes `frame`; on a write failure the
    // stream is dropped. Fills *generation with the stream's generation.
    Status write_request(std::unique_lock<std::mutex>& lock, std::int32_t opaque,
                         const std::string& frame, Deadline deadline,
                         const std::shared_ptr<Pending>& slot, std::uint64_t* generation);
    // Reads frames and hands responses to their slots until `mine` is done,
    // the deadline passes or the stream fails. Called without mutex_, by the
    // one caller that set reading_.
    void read_until_done(const std::shared_ptr<Pending>& mine, ByteStream& stream,
                         std::uint64_t generation, Deadline deadline,
                         std::chrono::milliseconds frame_timeout);
    // Closes the stream of `generation` (if still current) and fails every
    // outstanding request with `why`. Requires mutex_.
    void drop_stream(std::uint64_t generation, const Status& why);

    const std::string address_;
    const std::size_t max_in_flight_;
    const ClientSecurity security_;
    std::mutex mutex_;
    std::condition_variable changed_;     // a slot finished, reading_ or pending_ changed
    std::shared_ptr<ByteStream> stream_;  // guarded by mutex_; null when closed
    std::uint64_t generation_ = 0;        // guarded by mutex_; bumped per drop
    std::map<std::int32_t, std::shared_ptr<Pending>> pending_;  // guarded by mutex_
    bool reading_ = false;                                      // guarded by mutex_
    std::int32_t next_opaque_ = 1;                              // guarded by mutex_
    std::mutex write_mutex_;                                    // one frame at a time on the wire
};

}  // namespace outpost::rocketmq

#endif  // OUTPOST_ROCKETMQ_CONNECTION_H
