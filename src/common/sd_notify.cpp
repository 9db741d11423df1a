#include "common/sd_notify.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace outpost {

Notifier::Notifier() {
    const char* socket_name = std::getenv("NOTIFY_SOCKET");
    if (socket_name != nullptr && (socket_name[0] == '/' || socket_name[0] == '@') &&
        std::strlen(socket_name) < sizeof(sockaddr_un::sun_path)) {
        name_ = socket_name;
        address_ = socket_name;
        if (address_[0] == '@') address_[0] = '\0';
        fd_ = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    }
    const char* usec = std::getenv("WATCHDOG_USEC");
    const char* pid = std::getenv("WATCHDOG_PID");
    const bool for_us = pid == nullptr || std::strtol(pid, nullptr, 10) == getpid();
    if (usec != nullptr && for_us) {
        watchdog_ = std::chrono::microseconds(std::strtoll(usec, nullptr, 10));
        if (watchdog_.count() < 0) watchdog_ = std::chrono::microseconds(0);
    }
}

Notifier::~Notifier() {
    if (fd_ >= 0) close(fd_);
}

Status Notifier::send(const std::string& message) const {
    if (fd_ < 0) return Status::ok();
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::memcpy(address.sun_path, address_.data(), address_.size());
    // Abstract names are exactly as long as given; paths end at their NUL.
    const auto length = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + address_.size() +
                                               (address_[0] == '\0' ? 0 : 1));
    // MSG_DONTWAIT: a notify socket whose reader is slow or gone must not
    // block the sender (the watchdog thread); the message is dropped and
    // the failure returned.
    if (sendto(fd_, message.data(), message.size(), MSG_NOSIGNAL | MSG_DONTWAIT,
               reinterpret_cast<const sockaddr*>(&address), length) < 0) {
        return Status::error(StatusCode::kUnavailable,
                             "sd_notify to " + name_ + ": " + std::strerror(errno));
    }
    return Status::ok();
}

}  // namespace outpost
