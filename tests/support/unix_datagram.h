// Sends one AF_UNIX datagram, as firmware would to the telemetry socket.
#ifndef OUTPOST_TESTS_UNIX_DATAGRAM_H
#define OUTPOST_TESTS_UNIX_DATAGRAM_H

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <string_view>

namespace outpost::testing {

// True when the whole datagram was sent to the socket at `path`.
inline bool send_datagram(const std::string& path, std::string_view bytes) {
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.size() >= sizeof address.sun_path) return false;
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    const int fd = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return false;
    const ssize_t sent = ::sendto(fd, bytes.data(), bytes.size(), 0,
                                  reinterpret_cast<const sockaddr*>(&address), sizeof address);
    ::close(fd);
    return sent == static_cast<ssize_t>(bytes.size());
}

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_UNIX_DATAGRAM_H
