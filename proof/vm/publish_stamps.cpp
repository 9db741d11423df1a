#include "proof/vm/publish_stamps.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <list>
#include <mutex>
#include <thread>
#include <vector>

#include "proof/vm/publish_scanner.h"

namespace outpost::torture::vm {
namespace {

int connect_loopback(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

bool write_all(int fd, const uint8_t* data, size_t size) {
    while (size > 0) {
        const ssize_t wrote = ::send(fd, data, size, MSG_NOSIGNAL);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) return false;
        data += wrote;
        size -= static_cast<size_t>(wrote);
    }
    return true;
}

}  // namespace

struct PublishStamps::Impl {
    struct Connection {
        int guest = -1;
        int broker = -1;
        std::thread up;    // guest -> broker, scanned
        std::thread down;  // broker -> guest
    };

    int listener = -1;
    int port = 0;
    int broker_port = 0;
    int log_fd = -1;
    int stop_pipe[2] = {-1, -1};
    std::thread acceptor;
    mutable std::mutex mutex;
    std::list<Connection> connections;        // guarded by mutex
    std::map<std::string, uint64_t> stamped;  // guarded by mutex
    int unreadable = 0;                       // guarded by mutex

    uint64_t log_length() const {
        struct stat info {};
        return ::fstat(log_fd, &info) == 0 ? static_cast<uint64_t>(info.st_size) : 0;
    }

    void relay_up(Connection* connection) {
        PublishScanner scanner;
        uint8_t buffer[16384];
        for (;;) {
            const ssize_t got = ::recv(connection->guest, buffer, sizeof buffer, 0);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) break;
            const std::vector<std::string> ids = scanner.feed(buffer, static_cast<size_t>(got));
            if (!ids.empty()) {
                // Read before forwarding: the PUBACK, and so the mark, come later.
                const uint64_t length = log_length();
                std::lock_guard<std::mutex> lock(mutex);
                for (const std::string& id : ids) stamped.emplace(id, length);
            }
            if (!write_all(connection->broker, buffer, static_cast<size_t>(got))) break;
        }
        if (scanner.failed()) {
            std::lock_guard<std::mutex> lock(mutex);
            ++unreadable;
        }
        ::shutdown(connection->guest, SHUT_RDWR);
        ::shutdown(connection->broker, SHUT_RDWR);
    }

    void relay_down(Connection* connection) {
        uint8_t buffer[16384];
        for (;;) {
            const ssize_t got = ::recv(connection->broker, buffer, sizeof buffer, 0);
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0 || !write_all(connection->guest, buffer, static_cast<size_t>(got))) break;
        }
        ::shutdown(connection->guest, SHUT_RDWR);
        ::shutdown(connection->broker, SHUT_RDWR);
    }

    void accept_loop() {
        for (;;) {
            pollfd fds[2] = {{listener, POLLIN, 0}, {stop_pipe[0], POLLIN, 0}};
            if (::poll(fds, 2, -1) < 0) {
                if (errno == EINTR) continue;
                return;
            }
            if (fds[1].revents != 0) return;
            const int guest = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
            if (guest < 0) continue;
            const int broker = connect_loopback(broker_port);
            if (broker < 0) {
                ::close(guest);  // the publisher reconnects, as after any broker outage
                continue;
            }
            std::lock_guard<std::mutex> lock(mutex);
            Connection& connection = connections.emplace_back();
            connection.guest = guest;
            connection.broker = broker;
            connection.up = std::thread(&Impl::relay_up, this, &connection);
            connection.down = std::thread(&Impl::relay_down, this, &connection);
        }
    }

    ~Impl() {
        if (acceptor.joinable()) {
            const char byte = 0;
            (void)!::write(stop_pipe[1], &byte, 1);
            acceptor.join();
        }
        std::list<Connection> ending;
        {
            std::lock_guard<std::mutex> lock(mutex);
            ending.swap(connections);
        }
        for (Connection& connection : ending) {
            ::shutdown(connection.guest, SHUT_RDWR);
            ::shutdown(connection.broker, SHUT_RDWR);
            connection.up.join();
            connection.down.join();
            ::close(connection.guest);
            ::close(connection.broker);
        }
        for (int fd : {listener, log_fd, stop_pipe[0], stop_pipe[1]}) {
            if (fd >= 0) ::close(fd);
        }
    }
};

PublishStamps::PublishStamps(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PublishStamps::~PublishStamps() = default;

std::unique_ptr<PublishStamps> PublishStamps::start(int broker_port, const std::string& log_path,
                                                    std::string* error) {
    auto impl = std::make_unique<Impl>();
    impl->broker_port = broker_port;
    impl->log_fd = ::open(log_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (impl->log_fd < 0 || ::pipe2(impl->stop_pipe, O_CLOEXEC) != 0) {
        *error = "cannot open " + log_path + ": " + std::strerror(errno);
        return nullptr;
    }
    impl->listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    if (impl->listener < 0 ||
        ::bind(impl->listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(impl->listener, 8) != 0 ||
        ::getsockname(impl->listener, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
        *error = std::string("publish relay: cannot listen: ") + std::strerror(errno);
        return nullptr;
    }
    impl->port = ntohs(address.sin_port);
    impl->acceptor = std::thread(&Impl::accept_loop, impl.get());
    return std::unique_ptr<PublishStamps>(new PublishStamps(std::move(impl)));
}

int PublishStamps::port() const {
    return impl_->port;
}

std::map<std::string, uint64_t> PublishStamps::stamps() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    return impl_->stamped;
}

int PublishStamps::unreadable_streams() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    return impl_->unreadable;
}

}  // namespace outpost::torture::vm
