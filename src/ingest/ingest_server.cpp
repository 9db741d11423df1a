#include "ingest/ingest_server.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ingest/server_impl.h"

namespace outpost::ingest {

namespace {

Status check_options(const ServerOptions& options) {
    if (options.max_clients < 1) {
        return Status::error(StatusCode::kInvalidArgument, "max_clients must be at least 1");
    }
    if (options.max_request_bytes < 64) {
        return Status::error(StatusCode::kInvalidArgument, "max_request_bytes must be at least 64");
    }
    if (options.idle_timeout.count() <= 0) {
        return Status::error(StatusCode::kInvalidArgument, "idle_timeout must be positive");
    }
    if (options.socket_mode > 0777) {
        return Status::error(StatusCode::kInvalidArgument,
                             "socket_mode must be permission bits (at most 0777)");
    }
    return Status::ok();
}

}  // namespace

Result<std::unique_ptr<Server>> Server::start(Store& store, const ServerOptions& options,
                                              StatusProvider status) {
    if (Status checked = check_options(options); !checked) return checked;
    auto listener =
        ListenSocket::open(options.socket_path, options.socket_mode, options.max_clients);
    if (!listener) return listener.status();
    int wake[2];
    if (::pipe2(wake, O_CLOEXEC) != 0) {
        return Status::error(StatusCode::kIoError,
                             std::string("cannot create the stop pipe: ") + std::strerror(errno));
    }
    auto impl = std::make_unique<ServerImpl>(store, options, std::move(status),
                                             std::move(*listener), wake[0], wake[1]);
    impl->start_acceptor();
    return std::unique_ptr<Server>(new Server(std::move(impl)));
}

Server::Server(std::unique_ptr<ServerImpl> impl) : impl_(std::move(impl)) {}

Server::~Server() {
    stop();
}

void Server::stop() {
    impl_->stop();
}

ServerStats Server::stats() const {
    return impl_->stats();
}

}  // namespace outpost::ingest
