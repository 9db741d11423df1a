#include "rocketmq/connection.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "rocketmq/request_signer.h"
#include "rocketmq/tls_socket.h"

namespace outpost::rocketmq {
namespace {

using Clock = std::chrono::steady_clock;

// Reads one whole frame; a frame once begun is read to its end or the
// stream is unusable.
Result<RemotingCommand> read_frame(ByteStream& stream, const std::string& address,
                                   Deadline deadline) {
    unsigned char prefix[kFrameLengthPrefix];
    Status status = stream.read_exact(reinterpret_cast<char*>(prefix), sizeof(prefix), deadline);
    if (!status.is_ok()) return status;
    Result<std::size_t> length = decode_frame_length(prefix);
    if (!length.is_ok()) return length.status().with_context("from " + address);
    std::string payload(*length, '\0');
    status = stream.read_exact(payload.data(), payload.size(), deadline);
    if (!status.is_ok()) return status;
    Result<RemotingCommand> command = decode_frame_payload(payload);
    if (!command.is_ok()) return command.status().with_context("from " + address);
    return command;
}

}  // namespace

Connection::Connection(std::string address, int max_in_flight, ClientSecurity security)
    : address_(std::move(address)),
      max_in_flight_(static_cast<std::size_t>(std::max(1, max_in_flight))),
      security_(std::move(security)) {}

Status Connection::ensure_connected(Deadline deadline, bool* reused) {
    // Only an idle stream is probed: with requests outstanding, unread
    // responses are expected and a failure surfaces to the reader.
    if (stream_ != nullptr && pending_.empty() && stream_->peer_closed()) {
        drop_stream(generation_, Status::error(StatusCode::kUnavailable,
                                               "connection to " + address_ + " closed while idle"));
    }
    *reused = stream_ != nullptr;
    if (stream_ != nullptr) return Status::ok();
    Result<std::unique_ptr<ByteStream>> connected =
        connect_stream(address_, security_.tls.get(), deadline);
    if (!connected.is_ok()) return connected.status();
    stream_ = std::shared_ptr<ByteStream>(std::move(connected).value());
    return Status::ok();
}

void Connection::drop_stream(std::uint64_t generation, const Status& why) {
    if (generation != generation_ || stream_ == nullptr) return;
    stream_->shutdown();  // wakes the reader; the last holder closes the socket
    stream_.reset();
    ++generation_;
    for (auto& entry : pending_) {
        if (!entry.second->done) {
            entry.second->done = true;
            entry.second->status = why;
        }
    }
    pending_.clear();
    changed_.notify_all();
}

Status Connection::write_request(std::unique_lock<std::mutex>& lock, std::int32_t opaque,
                                 const std::string& frame, Deadline deadline,
                                 const std::shared_ptr<Pending>& slot, std::uint64_t* generation) {
    for (int attempt = 1;; ++attempt) {
        bool reused = false;
        Status status = ensure_connected(deadline, &reused);
        if (!status.is_ok()) return status;
        const bool alone = pending_.empty();
        pending_[opaque] = slot;  // before writing: the answer may come at once
        *generation = generation_;
        std::shared_ptr<ByteStream> stream = stream_;
        lock.unlock();
        {
            std::lock_guard<std::mutex> writing(write_mutex_);
            status = stream->write_all(frame, deadline);
        }
        lock.lock();
        if (status.is_ok()) return status;
        // Part of a frame may be on the wire: the stream is unusable.
        drop_stream(*generation, status);
        if (attempt == 1 && alone && reused && status.code() == StatusCode::kUnavailable) {
            // The server closed the idle stream between our check and the
            // write; a frame it never fully received was not processed, and
            // no other request shared the stream: resend once.
            *slot = Pending{};
            continue;
        }
        return status;
    }
}

void Connection::read_until_done(const std::shared_ptr<Pending>& mine, ByteStream& stream,
                                 std::uint64_t generation, Deadline deadline,
                                 std::chrono::milliseconds frame_timeout) {
    for (;;) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            if (mine->done || generation != generation_) return;
        }
        Status ready = stream.wait_readable(deadline);
        if (ready.code() == StatusCode::kTimeout) return;  // the caller times out
        Result<RemotingCommand> command =
            ready.is_ok() ? read_frame(stream, address_, Clock::now() + frame_timeout)
                          : Result<RemotingCommand>(ready);
        std::lock_guard<std::mutex> lock(mutex_);
        if (!command.is_ok()) {
            drop_stream(generation, command.status());
            return;
        }
        // Server-initiated requests (a pure producer need not answer them) and
        // late answers to requests already given up have no slot: skipped.
        if (!command->is_response()) continue;
        auto found = pending_.find(command->opaque);
        if (found == pending_.end()) continue;
        found->second->done = true;
        found->second->response = std::move(command).value();
        pending_.erase(found);
        changed_.notify_all();
    }
}

Result<RemotingCommand> Connection::invoke(RemotingCommand request,
                                           std::chrono::milliseconds timeout) {
    const Deadline deadline = Clock::now() + timeout;
    // The opaque is not signed, so signing may precede its choice.
    if (security_.credentials) {
        Status signed_request = sign_request(request, *security_.credentials);
        if (!signed_request.is_ok()) return signed_request;
    }
    std::unique_lock<std::mutex> lock(mutex_);
    if (!changed_.wait_until(lock, deadline, [this] { return pending_.size() < max_in_flight_; })) {
        return Status::error(StatusCode::kTimeout, "no free request slot on the connection to " +
                                                       address_ + " within " +
                                                       std::to_string(timeout.count()) + " ms");
    }
    request.opaque = next_opaque_;
    next_opaque_ = next_opaque_ == std::numeric_limits<std::int32_t>::max() ? 1 : next_opaque_ + 1;
    Result<std::string> frame = encode_frame(request);
    if (!frame.is_ok()) return frame.status();

    auto slot = std::make_shared<Pending>();
    std::uint64_t generation = 0;
    Status written = write_request(lock, request.opaque, *frame, deadline, slot, &generation);
    if (!written.is_ok()) return written;
    while (!slot->done) {
        if (Clock::now() >= deadline) {
            // Unanswered in time: whether the server is alive is uncertain,
            // so the stream goes, with everything outstanding on it.
            drop_stream(generation, Status::error(StatusCode::kUnavailable,
                                                  "connection to " + address_ +
                                                      " dropped: a request got no answer in " +
                                                      std::to_string(timeout.count()) + " ms"));
            slot->done = true;
            slot->status =
                Status::error(StatusCode::kTimeout, "no answer from " + address_ + " within " +
                                                        std::to_string(timeout.count()) + " ms");
            break;
        }
        if (!reading_ && stream_ != nullptr && generation == generation_) {
            reading_ = true;
            std::shared_ptr<ByteStream> stream = stream_;
            lock.unlock();
            read_until_done(slot, *stream, generation, deadline, timeout);
            lock.lock();
            reading_ = false;
            changed_.notify_all();  // another waiter takes over the reading
            continue;
        }
        changed_.wait_until(lock, deadline);
    }
    auto found = pending_.find(request.opaque);
    if (found != pending_.end() && found->second == slot) pending_.erase(found);
    changed_.notify_all();  // a slot is free
    if (!slot->status.is_ok()) return slot->status;
    return std::move(slot->response);
}

}  // namespace outpost::rocketmq
