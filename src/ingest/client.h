// A client of the ingestion socket (outpostctl and the tests use it): one
// connection, one request line out, one answer line back, as often as needed.
#ifndef OUTPOST_INGEST_CLIENT_H
#define OUTPOST_INGEST_CLIENT_H

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "ingest/line_io.h"
#include "outpost/status.h"

namespace outpost::ingest {

class Client final {
  public:
    // Connects to the socket at `path`. Errors, each with its own message:
    // kNotFound (no socket file there), kUnavailable (a socket file, but
    // nobody listens: outpostd is not running), kRejected (permission
    // denied), kInvalidArgument (bad path), kIoError (anything else).
    static Result<std::unique_ptr<Client>> connect(const std::string& path);
    ~Client();
    Client(const Client&) = delete;
    Client& operator=(const Client&) = delete;

    // Sends `request` plus '\n' as is (any bytes) and waits up to `timeout`
    // for one answer line. If sending fails part way (the server closed the
    // connection), the server's answer is still read when there is one.
    // Errors: kUnavailable (closed without an answer), kTimeout, kIoError.
    Result<std::string> exchange(const std::string& request, std::chrono::milliseconds timeout);

    // exchange() of the JSON request; the answer parsed. kInternal when the
    // answer is not JSON.
    Result<nlohmann::json> call(const nlohmann::json& request, std::chrono::milliseconds timeout);

    int fd() const { return fd_; }

  private:
    Client(std::string path, int fd)
        : path_(std::move(path)), fd_(fd), reader_(fd, kMaxAnswerBytes) {}

    static constexpr size_t kMaxAnswerBytes = 16 * 1024 * 1024;
    const std::string path_;
    const int fd_;
    LineReader reader_;
};

}  // namespace outpost::ingest

#endif  // OUTPOST_INGEST_CLIENT_H
