// The local AF_UNIX SOCK_DGRAM socket through which firmware that cannot
// link C++ hands telemetry over (format: outpost/telemetry.h). It owns one
// thread, "outpost-tele-dg", which stop() wakes through an eventfd and joins.
#ifndef OUTPOST_TELEMETRY_DATAGRAM_SOCKET_H
#define OUTPOST_TELEMETRY_DATAGRAM_SOCKET_H

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "outpost/status.h"

namespace outpost::telemetry {

class DatagramSocket final {
  public:
    // Called on the socket thread for each datagram; `truncated` when it
    // was longer than the receive buffer (then `bytes` is its first part).
    using Handler = std::function<void(std::string_view bytes, bool truncated)>;

    // Binds `path` with file mode 0660. A socket file nobody serves (left by
    // a dead process) is replaced. Errors: kBusy (a live process serves the
    // path), kInvalidArgument (the path exists and is not a socket, or is
    // too long), kIoError (socket, bind or chmod failed; errno text).
    static Result<std::unique_ptr<DatagramSocket>> bind(const std::string& path,
                                                        size_t max_datagram_bytes);

    ~DatagramSocket();
    DatagramSocket(const DatagramSocket&) = delete;
    DatagramSocket& operator=(const DatagramSocket&) = delete;

    // Starts the socket thread, which first calls `on_start`. Call once.
    void run(Handler handler, std::function<void()> on_start);

    // Joins the thread, closes the socket and removes the file. Idempotent.
    void stop();

    // The most recent receive error, "" when none.
    std::string last_error() const;

  private:
    DatagramSocket(std::string path, int socket_fd, int wake_fd, size_t max_datagram_bytes);
    void receive_loop(const Handler& handler);

    const std::string path_;
    int socket_fd_;
    int wake_fd_;  // eventfd: written by stop() to end receive_loop
    const size_t buffer_bytes_;
    std::thread thread_;
    mutable std::mutex error_mutex_;
    std::string last_error_;  // guarded by error_mutex_
};

}  // namespace outpost::telemetry

#endif  // OUTPOST_TELEMETRY_DATAGRAM_SOCKET_H
