// A scripted loopback "server" for RocketMQ client unit tests: it accepts
// connections on 127.0.0.1 and hands each, in turn, to a test-supplied script
// that reads request frames and writes whatever frames the test needs.
#ifndef OUTPOST_TESTS_ROCKETMQ_SCRIPTED_SERVER_H
#define OUTPOST_TESTS_ROCKETMQ_SCRIPTED_SERVER_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

#include "rocketmq/frame.h"

namespace outpost::rocketmq::testing {

inline bool read_all(int fd, char* out, std::size_t size) {
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

inline void write_all(int fd, const std::string& data) {
    std::size_t done = 0;
    while (done < data.size()) {
        ssize_t sent = send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
        if (sent <= 0) {
            return;
        }
        done += static_cast<std::size_t>(sent);
    }
}

// Reads one request frame from `fd`; false when the peer is gone.
inline bool read_request(int fd, RemotingCommand* out) {
    unsigned char prefix[4];
    if (!read_all(fd, reinterpret_cast<char*>(prefix), 4)) {
        return false;
    }
    const std::uint32_t length = (std::uint32_t{prefix[0]} << 24) |
                                 (std::uint32_t{prefix[1]} << 16) |
                                 (std::uint32_t{prefix[2]} << 8) | std::uint32_t{prefix[3]};
    std::string frame(reinterpret_cast<char*>(prefix), 4);
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

// A response frame with `opaque`, `code` and `body`.
inline std::string response_frame(std::int32_t opaque, int code, const std::string& body,
                                  std::map<std::string, std::string> fields = {}) {
    RemotingCommand response;
    response.code = code;
    response.opaque = opaque;
    response.flag = kFlagResponse;
    response.language = "JAVA";
    response.body = body;
    response.ext_fields = std::move(fields);
    return *encode_frame(response);
}

class ScriptedServer final {
  public:
    // `script(fd, index)` serves the index-th accepted connection; the server
    // closes it when the script returns.
    explicit ScriptedServer(std::function<void(int fd, int index)> script)
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
                    if (fd >= 0) {
                        close(fd);
                    }
                    return;
                }
                ++accepted_;
                script_(fd, index);
                close(fd);
                {
                    std::lock_guard<std::mutex> lock(mutex_);
                    ++closed_;
                }
                changed_.notify_all();
            }
        });
    }
    ~ScriptedServer() {
        stopping_ = true;
        shutdown(listener_, SHUT_RDWR);
        close(listener_);
        thread_.join();
    }
    ScriptedServer(const ScriptedServer&) = delete;
    ScriptedServer& operator=(const ScriptedServer&) = delete;

    std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
    int accepted() const { return accepted_; }

    // Waits until the server has closed `count` connections (their scripts
    // returned) or `limit` passed; returns whether it had.
    bool wait_closed(int count, std::chrono::milliseconds limit) {
        std::unique_lock<std::mutex> lock(mutex_);
        return changed_.wait_for(lock, limit, [&] { return closed_ >= count; });
    }

  private:
    std::function<void(int, int)> script_;
    int listener_ = -1;
    int port_ = 0;
    std::atomic<bool> stopping_{false};
    std::atomic<int> accepted_{0};
    std::mutex mutex_;
    std::condition_variable changed_;
    int closed_ = 0;  // guarded by mutex_
    std::thread thread_;
};

}  // namespace outpost::rocketmq::testing

#endif  // OUTPOST_TESTS_ROCKETMQ_SCRIPTED_SERVER_H
