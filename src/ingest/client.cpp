#include "ingest/client.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "ingest/listen_socket.h"
#include "ingest/protocol.h"

namespace outpost::ingest {

namespace {

Status connect_error(const std::string& path, int error) {
    switch (error) {
        case ENOENT:
            return Status::error(StatusCode::kNotFound,
                                 "no socket at " + path + ": is outpostd running?");
        case ECONNREFUSED:
            return Status::error(
                StatusCode::kUnavailable,
                "nobody listens on " + path + " (a stale socket file): outpostd is not running");
        case EACCES:
        case EPERM:
            return Status::error(StatusCode::kRejected,
                                 "permission denied on " + path +
                                     ": run as the socket's owner or a member of its group");
        default:
            return Status::error(StatusCode::kIoError,
                                 "cannot connect to " + path + ": " + std::strerror(error));
    }
}

}  // namespace

Result<std::unique_ptr<Client>> Client::connect(const std::string& path) {
    sockaddr_un address{};
    if (Status status = unix_address(path, address); !status) return status;
    int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return connect_error(path, errno);
    if (::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) != 0) {
        Status status = connect_error(path, errno);
        ::close(fd);
        return status;
    }
    return std::unique_ptr<Client>(new Client(path, fd));
}

Client::~Client() {
    ::close(fd_);
}

Result<std::string> Client::exchange(const std::string& request,
                                     std::chrono::milliseconds timeout) {
    bool sent = write_all(fd_, request + "\n");
    int send_errno = errno;
    std::string line;
    switch (reader_.next(line, timeout)) {
        case LineReader::Outcome::kLine:
            return line;
        case LineReader::Outcome::kTimedOut:
            return Status::error(StatusCode::kTimeout, "no answer from " + path_ + " within " +
                                                           std::to_string(timeout.count()) + " ms");
        case LineReader::Outcome::kClosed:
            return Status::error(
                StatusCode::kUnavailable,
                "outpostd closed the connection on " + path_ + " without answering" +
                    (sent ? "" : std::string(" (") + std::strerror(send_errno) + ")"));
        default:
            return Status::error(StatusCode::kIoError,
                                 "reading the answer from " + path_ + ": " + std::strerror(errno));
    }
}

Result<nlohmann::json> Client::call(const nlohmann::json& request,
                                    std::chrono::milliseconds timeout) {
    std::string line = to_line(request);
    line.pop_back();  // exchange() adds the newline
    auto answer = exchange(line, timeout);
    if (!answer) return answer.status();
    auto document = nlohmann::json::parse(*answer, nullptr, false);
    if (document.is_discarded() || !document.is_object()) {
        return Status::error(
            StatusCode::kInternal,
            "outpostd answered something that is not a JSON object: " + answer->substr(0, 200));
    }
    return document;
}

}  // namespace outpost::ingest
