#include "rocketmq/connection.h"

#include <limits>
#include <utility>

namespace outpost::rocketmq {

Connection::Connection(std::string address, ClientSecurity security)
    : address_(std::move(address)), security_(std::move(security)) {}

Status Connection::ensure_connected(Deadline deadline, bool* reused) {
    if (socket_ != nullptr && socket_->peer_closed()) {
        socket_.reset();
    }
    *reused = socket_ != nullptr;
    if (socket_ != nullptr) {
        return Status::ok();
    }
    Result<std::unique_ptr<Stream>> connected =
        connect_stream(address_, security_.tls.get(), deadline);
    if (!connected.is_ok()) {
        return connected.status();
    }
    socket_ = std::move(connected).value();
    return Status::ok();
}

Result<RemotingCommand> Connection::read_response(std::int32_t opaque, Deadline deadline) {
    for (;;) {
        unsigned char prefix[kFrameLengthPrefix];
        Status status =
            socket_->read_exact(reinterpret_cast<char*>(prefix), sizeof(prefix), deadline);
        if (!status.is_ok()) {
            return status;
        }
        Result<std::size_t> length = decode_frame_length(prefix);
        if (!length.is_ok()) {
            return length.status().with_context("from " + address_);
        }
        std::string payload(*length, '\0');
        status = socket_->read_exact(payload.data(), payload.size(), deadline);
        if (!status.is_ok()) {
            return status;
        }
        Result<RemotingCommand> command = decode_frame_payload(payload);
        if (!command.is_ok()) {
            return command.status().with_context("from " + address_);
        }
        if (command->is_response() && command->opaque == opaque) {
            return command;
        }
        // A late answer to a request we gave up on, or a server-initiated
        // request a pure producer need not answer: skip it.
    }
}

Result<RemotingCommand> Connection::invoke(RemotingCommand request,
                                           std::chrono::milliseconds timeout) {
    const Deadline deadline = std::chrono::steady_clock::now() + timeout;
    // The opaque is not signed, so signing may precede its choice.
    if (security_.credentials) {
        Status signed_request = sign_request(request, *security_.credentials);
        if (!signed_request.is_ok()) {
            return signed_request;
        }
    }
    std::lock_guard<std::mutex> lock(mutex_);
    request.opaque = next_opaque_;
    next_opaque_ = next_opaque_ == std::numeric_limits<std::int32_t>::max() ? 1 : next_opaque_ + 1;
    Result<std::string> frame = encode_frame(request);
    if (!frame.is_ok()) {
        return frame.status();
    }
    bool reused = false;
    Status status = ensure_connected(deadline, &reused);
    if (status.is_ok()) {
        status = socket_->write_all(*frame, deadline);
        if (!status.is_ok() && reused && status.code() == StatusCode::kUnavailable) {
            // The server closed the idle stream between our check and the write;
            // a frame it never fully received was not processed, so resend once.
            socket_.reset();
            status = ensure_connected(deadline, &reused);
            if (status.is_ok()) {
                status = socket_->write_all(*frame, deadline);
            }
        }
    }
    if (!status.is_ok()) {
        socket_.reset();
        return status;
    }
    Result<RemotingCommand> response = read_response(request.opaque, deadline);
    if (!response.is_ok()) {
        socket_.reset();
    }
    return response;
}

}  // namespace outpost::rocketmq
