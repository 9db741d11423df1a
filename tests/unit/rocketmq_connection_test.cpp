// A connection matches responses by opaque, bounds every call by its timeout,
// survives a server that closed it while idle and refuses hostile frames.
// The "server" is a scripted loopback listener in a test thread.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <functional>
#include <string>
#include <thread>

#include "rocketmq/connection.h"
#include "rocketmq/frame.h"

namespace {

using namespace std::chrono_literals;
using outpost::StatusCode;
using outpost::rocketmq::Connection;
using outpost::rocketmq::decode_frame;
using outpost::rocketmq::encode_frame;
using outpost::rocketmq::RemotingCommand;

bool read_all(int fd, char* out, std::size_t size) {
    while (size > 0) {
        ssize_t got = recv(fd, out, size, 0);
        if (got <= 0) {
            return false;
        }
        out += got;
        size -= static_cast<std::size_t>(got);
    }
    return true;
}

void write_all(int fd, const std::string& data) {
    std::size_t done = 0;
    while (done < data.size()) {
        ssize_t sent = send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
        if (sent <= 0) {
            return;
        }
        done += static_cast<std::size_t>(sent);
    }
}

// Reads one request frame from `fd`; returns false when the peer is gone.
bool read_request(int fd, RemotingCommand* out) {
    char prefix[4];
    if (!read_all(fd, prefix, 4)) {
        return false;
    }
    std::uint32_t length = (std::uint32_t(static_cast<unsigned char>(prefix[0])) << 24) |
                           (std::uint32_t(static_cast<unsigned char>(prefix[1])) << 16) |
                           (std::uint32_t(static_cast<unsigned char>(prefix[2])) << 8) |
                           std::uint32_t(static_cast<unsigned char>(prefix[3]));
    std::string frame(prefix, 4);
    frame.resize(4 + length);
    if (!read_all(fd, frame.data() + 4, length)) {
        return false;
    }
    auto decoded = decode_frame(frame);
    if (!decoded.is_ok()) {
        return false;
    }
    *out = *decoded;
    return true;
}

std::string response_to(const RemotingCommand& request, std::int32_t opaque, int code,
                        const std::string& body) {
    RemotingCommand response;
    response.code = code;
    response.opaque = opaque;
    response.flag = outpost::rocketmq::kFlagResponse;
    response.language = "JAVA";
    response.body = body;
    (void)request;
    return *encode_frame(response);
}

// Accepts connections on 127.0.0.1 and hands each to `script` in a thread.
class ScriptedServer {
  public:
    explicit ScriptedServer(std::function<void(int connection_fd, int index)> script)
        : script_(std::move(script)) {
        listener_ = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        address.sin_port = 0;
        bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof(address));
        listen(listener_, 8);
        socklen_t length = sizeof(address);
        getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
        port_ = ntohs(address.sin_port);
        thread_ = std::thread([this] {
            for (int index = 0;; ++index) {
                int fd = accept(listener_, nullptr, nullptr);
                if (fd < 0 || stopping_) {
                    if (fd >= 0) close(fd);
                    return;
                }
                accepted_++;
                script_(fd, index);
                close(fd);
            }
        });
    }
    ~ScriptedServer() {
        stopping_ = true;
        shutdown(listener_, SHUT_RDWR);
        close(listener_);
        thread_.join();
    }
    std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
    int accepted() const { return accepted_; }

  private:
    std::function<void(int, int)> script_;
    int listener_ = -1;
    int port_ = 0;
    std::atomic<bool> stopping_{false};
    std::atomic<int> accepted_{0};
    std::thread thread_;
};

RemotingCommand ping() {
    RemotingCommand request;
    request.code = 105;
    request.ext_fields["topic"] = "t";
    return request;
}

}  // namespace

TEST_CASE("a late response to an abandoned request and server requests are skipped") {
    ScriptedServer server([](int fd, int) {
        RemotingCommand request;
        if (!read_request(fd, &request)) return;
        write_all(fd, response_to(request, request.opaque - 1, 1, "stale"));
        RemotingCommand server_request;  // e.g. a broker notification
        server_request.code = 39;
        server_request.opaque = request.opaque;
        write_all(fd, *encode_frame(server_request));
        write_all(fd, response_to(request, request.opaque, 0, "mine"));
        read_request(fd, &request);  // hold until the client is done
    });
    Connection connection(server.address());
    auto response = connection.invoke(ping(), 2000ms);
    REQUIRE(response.is_ok());
    CHECK(response->body == "mine");
    CHECK(response->code == 0);
}

TEST_CASE("a server that never answers costs the timeout, not a hang") {
    ScriptedServer server([](int fd, int) {
        RemotingCommand request;
        while (read_request(fd, &request)) {
        }
    });
    Connection connection(server.address());
    const auto start = std::chrono::steady_clock::now();
    auto response = connection.invoke(ping(), 300ms);
    const auto took = std::chrono::steady_clock::now() - start;
    REQUIRE_FALSE(response.is_ok());
    CHECK(response.status().code() == StatusCode::kTimeout);
    CHECK(took >= 290ms);
    CHECK(took < 1500ms);
}

TEST_CASE("a connection the server closed while idle is replaced on the next call") {
    ScriptedServer server([](int fd, int) {
        RemotingCommand request;
        if (read_request(fd, &request)) {
            write_all(fd, response_to(request, request.opaque, 0, "ok"));
        }
        // then close, as the broker does after 120 s idle
    });
    Connection connection(server.address());
    REQUIRE(connection.invoke(ping(), 2000ms).is_ok());
    std::this_thread::sleep_for(100ms);
    auto second = connection.invoke(ping(), 2000ms);
    REQUIRE(second.is_ok());
    CHECK(second->body == "ok");
    CHECK(server.accepted() == 2);
}

TEST_CASE("a hostile 20 MiB length from the server is an error, then the next call reconnects") {
    ScriptedServer server([](int fd, int index) {
        RemotingCommand request;
        if (!read_request(fd, &request)) return;
        if (index == 0) {
            write_all(fd, std::string("\x01\x40\x00\x00", 4));  // 20 MiB promised
            std::this_thread::sleep_for(200ms);
            return;
        }
        write_all(fd, response_to(request, request.opaque, 0, "fine"));
        read_request(fd, &request);
    });
    Connection connection(server.address());
    auto first = connection.invoke(ping(), 2000ms);
    REQUIRE_FALSE(first.is_ok());
    CHECK(first.status().code() == StatusCode::kInvalidArgument);
    CHECK(first.status().message().find("16 MiB") != std::string::npos);
    auto second = connection.invoke(ping(), 2000ms);
    REQUIRE(second.is_ok());
    CHECK(second->body == "fine");
}

TEST_CASE("nobody listening gives kUnavailable quickly") {
    int port = 0;
    {
        ScriptedServer server([](int, int) {});
        port = std::stoi(server.address().substr(10));
    }
    Connection connection("127.0.0.1:" + std::to_string(port));
    auto response = connection.invoke(ping(), 2000ms);
    REQUIRE_FALSE(response.is_ok());
    CHECK(response.status().code() == StatusCode::kUnavailable);
}

TEST_CASE("a malformed address is an invalid argument, with no DNS lookup") {
    Connection connection("broker.example:10911");
    auto response = connection.invoke(ping(), 500ms);
    REQUIRE_FALSE(response.is_ok());
    CHECK(response.status().code() == StatusCode::kInvalidArgument);
}
