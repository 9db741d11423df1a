// A one-connection loopback server that plays a broker from a script: it
// reads the client's CONNECT, writes the scripted bytes, then keeps what the
// client sends until it closes. Only for the malformed-input tests: every
// other test runs against a real broker.
#ifndef OUTPOST_TESTS_INTEGRATION_MQTT5_FAKE_BROKER_H
#define OUTPOST_TESTS_INTEGRATION_MQTT5_FAKE_BROKER_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>
#include <string>
#include <thread>

namespace outpost::testing {

class FakeBroker final {
  public:
    explicit FakeBroker(std::string script) : script_(std::move(script)) {
        listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        if (listener_ < 0 ||
            ::bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
            ::listen(listener_, 1) != 0 ||
            ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
            throw std::runtime_error("fake broker: cannot listen");
        }
        port_ = ntohs(address.sin_port);
        thread_ = std::thread([this] { serve(); });
    }
    ~FakeBroker() {
        ::shutdown(listener_, SHUT_RDWR);
        if (thread_.joinable()) thread_.join();
        ::close(listener_);
    }
    FakeBroker(const FakeBroker&) = delete;
    FakeBroker& operator=(const FakeBroker&) = delete;

    std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
    // What the client sent after its CONNECT; complete once the client closed
    // (call after the client is gone).
    std::string received_after_connect() {
        if (thread_.joinable()) thread_.join();
        return after_connect_;
    }

  private:
    void serve() {
        pollfd waiting{listener_, POLLIN, 0};
        if (::poll(&waiting, 1, 30000) <= 0) return;
        const int connection = ::accept(listener_, nullptr, nullptr);
        if (connection < 0) return;
        std::string in;
        char buffer[4096];
        // The whole CONNECT: first byte, Remaining Length, body.
        for (;;) {
            std::size_t length = 0, used = 0;
            bool whole = false;
            for (std::size_t i = 1; i < in.size() && i <= 4; ++i) {
                length |= (static_cast<unsigned char>(in[i]) & 0x7fu) << (7 * (i - 1));
                if ((static_cast<unsigned char>(in[i]) & 0x80) == 0) {
                    used = i;
                    whole = in.size() >= 1 + used + length;
                    break;
                }
            }
            if (whole) {
                after_connect_ = in.substr(1 + used + length);
                break;
            }
            const ssize_t got = ::recv(connection, buffer, sizeof buffer, 0);
            if (got <= 0) {
                ::close(connection);
                return;
            }
            in.append(buffer, static_cast<std::size_t>(got));
        }
        ::send(connection, script_.data(), script_.size(), MSG_NOSIGNAL);
        for (;;) {
            pollfd readable{connection, POLLIN, 0};
            if (::poll(&readable, 1, 30000) <= 0) break;
            const ssize_t got = ::recv(connection, buffer, sizeof buffer, 0);
            if (got <= 0) break;
            after_connect_.append(buffer, static_cast<std::size_t>(got));
        }
        ::close(connection);
    }

    std::string script_;
    int listener_ = -1;
    int port_ = 0;
    std::thread thread_;
    std::string after_connect_;
};

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_INTEGRATION_MQTT5_FAKE_BROKER_H
