// A minimal HTTP/1.x endpoint for Prometheus: GET /metrics answers the text
// `render` returns; anything else gets 404 or 405. One connection at a time,
// each closed after its answer. Each connection has one deadline for reading
// its request and writing the answer together (2 s unless told), so a client
// that trickles its request or reads the answer byte by byte holds the
// endpoint no longer than that; scrapes are rare and tiny.
//
// Thread: "outpost-metrics", owned; stop() (or the destructor) wakes it,
// joins it and closes the socket.
#ifndef OUTPOST_COMMON_METRICS_SERVER_H
#define OUTPOST_COMMON_METRICS_SERVER_H

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "common/listen_address.h"
#include "outpost/status.h"

namespace outpost {

class MetricsServer final {
  public:
    using Render = std::function<std::string()>;
    static constexpr std::chrono::milliseconds kConnectionDeadline{2000};

    // Binds and listens on `address`; `render` is called on the server
    // thread for each scrape. A connection not done within
    // `connection_deadline` of its accept is closed. kIoError names the
    // address and errno.
    static Result<std::unique_ptr<MetricsServer>> start(
        const ListenAddress& address, Render render,
        std::chrono::milliseconds connection_deadline = kConnectionDeadline);
    ~MetricsServer();
    MetricsServer(const MetricsServer&) = delete;
    MetricsServer& operator=(const MetricsServer&) = delete;

    // "127.0.0.1:9464", with the port the kernel chose for port 0.
    const std::string& bound_address() const { return bound_address_; }
    void stop();

  private:
    MetricsServer(int listen_fd, int wake_read, int wake_write, Render render,
                  std::chrono::milliseconds connection_deadline);
    void serve();
    void answer(int client) const;

    int listen_fd_;
    int wake_read_;  // readable once stop() wrote to wake_write_
    int wake_write_;
    Render render_;
    const std::chrono::milliseconds connection_deadline_;
    std::string bound_address_;
    std::thread thread_;
};

}  // namespace outpost

#endif  // OUTPOST_COMMON_METRICS_SERVER_H
