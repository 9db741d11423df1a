// A TCP relay that holds every chunk it forwards for a fixed delay, in both
// directions: the bridge bench's stand-in for a RocketMQ a few milliseconds
// away. (The kernel here has no sch_netem, so `tc qdisc ... netem` in a
// network namespace of the bench's own is not available.) Listens on
// `listen_host:port`, relays to `upstream`; bench programs only.
#ifndef OUTPOST_BENCH_DELAY_PROXY_H
#define OUTPOST_BENCH_DELAY_PROXY_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace outpost::bench {

class DelayProxy final {
  public:
    // Fails (ok() false) when it cannot listen on listen_host:port.
    DelayProxy(const std::string& listen_host, int port, const std::string& upstream_host,
               int upstream_port, std::chrono::microseconds delay)
        : upstream_host_(upstream_host), upstream_port_(upstream_port), delay_(delay) {
        listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        int one = 1;
        setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in address = make_address(listen_host, port);
        if (bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
            listen(listener_, 16) != 0) {
            close(listener_);
            listener_ = -1;
            return;
        }
        accept_thread_ = std::thread([this] { accept_loop(); });
    }

    ~DelayProxy() {
        stopping_ = true;
        if (listener_ >= 0) shutdown(listener_, SHUT_RDWR);
        if (accept_thread_.joinable()) accept_thread_.join();  // no relay starts after this
        {
            std::lock_guard<std::mutex> lock(mutex_);
            for (int fd : fds_) shutdown(fd, SHUT_RDWR);
            for (auto& pipe : pipes_) pipe->stop();
        }
        for (std::thread& thread : threads_) thread.join();
        std::lock_guard<std::mutex> lock(mutex_);
        for (int fd : fds_) close(fd);
        if (listener_ >= 0) close(listener_);
    }
    DelayProxy(const DelayProxy&) = delete;
    DelayProxy& operator=(const DelayProxy&) = delete;

    bool ok() const { return listener_ >= 0; }

  private:
    // One direction: chunks read from `from` wait in a queue until due.
    struct Pipe {
        std::mutex mutex;
        std::condition_variable changed;
        std::deque<std::pair<std::chrono::steady_clock::time_point, std::string>> chunks;
        bool done = false;
        void stop() {
            std::lock_guard<std::mutex> lock(mutex);
            done = true;
            changed.notify_all();
        }
    };

    static sockaddr_in make_address(const std::string& host, int port) {
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_port = htons(static_cast<std::uint16_t>(port));
        inet_pton(AF_INET, host.c_str(), &address.sin_addr);
        return address;
    }

    void accept_loop() {
        while (!stopping_) {
            const int client = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
            if (client < 0) return;
            const int upstream = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
            sockaddr_in address = make_address(upstream_host_, upstream_port_);
            if (connect(upstream, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
                close(client);
                close(upstream);
                continue;
            }
            int one = 1;
            setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            setsockopt(upstream, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            std::lock_guard<std::mutex> lock(mutex_);
            fds_.push_back(client);
            fds_.push_back(upstream);
            relay(client, upstream);
            relay(upstream, client);
        }
    }

    // Two threads per direction: one reads and stamps, one forwards when due.
    // Requires mutex_.
    void relay(int from, int to) {
        auto pipe = std::make_shared<Pipe>();
        pipes_.push_back(pipe);
        threads_.emplace_back([this, from, to, pipe] {
            char buffer[65536];
            for (;;) {
                const ssize_t got = recv(from, buffer, sizeof buffer, 0);
                if (got <= 0) break;
                std::lock_guard<std::mutex> lock(pipe->mutex);
                pipe->chunks.emplace_back(std::chrono::steady_clock::now() + delay_,
                                          std::string(buffer, static_cast<std::size_t>(got)));
                pipe->changed.notify_all();
            }
            pipe->stop();
        });
        threads_.emplace_back([from, to, pipe] {
            std::unique_lock<std::mutex> lock(pipe->mutex);
            for (;;) {
                pipe->changed.wait(lock, [&] { return pipe->done || !pipe->chunks.empty(); });
                if (pipe->chunks.empty()) break;
                auto [due, chunk] = std::move(pipe->chunks.front());
                pipe->chunks.pop_front();
                lock.unlock();
                std::this_thread::sleep_until(due);
                for (std::size_t sent = 0; sent < chunk.size();) {
                    const ssize_t wrote =
                        send(to, chunk.data() + sent, chunk.size() - sent, MSG_NOSIGNAL);
                    if (wrote <= 0) break;
                    sent += static_cast<std::size_t>(wrote);
                }
                lock.lock();
            }
            shutdown(to, SHUT_WR);
            shutdown(from, SHUT_RD);
        });
    }

    const std::string upstream_host_;
    const int upstream_port_;
    const std::chrono::microseconds delay_;
    int listener_ = -1;
    std::atomic<bool> stopping_{false};
    std::mutex mutex_;
    std::vector<int> fds_;                      // guarded by mutex_
    std::vector<std::shared_ptr<Pipe>> pipes_;  // guarded by mutex_
    std::thread accept_thread_;
    std::vector<std::thread> threads_;  // appended by the accept thread, joined after it
};

}  // namespace outpost::bench

#endif  // OUTPOST_BENCH_DELAY_PROXY_H
