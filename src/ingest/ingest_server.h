// The local alarm ingestion socket: firmware that cannot link C++ records
// alarms through outpostd over an AF_UNIX stream socket, one JSON object per
// line each way (firmware_glue/ingest-protocol.md). An answer carrying an
// eventId is sent only after Store::record_alarm returned, i.e. after the
// alarm and its outbox row are durable.
//
// Threads: one acceptor thread ("ingest-accept") and one thread per
// connection ("ingest-conn"), at most max_clients of them. A client beyond
// the limit gets a "busy" answer and is closed. stop() (or the destructor)
// closes the listener, lets each connection finish the request it is
// executing, closes every connection, joins all threads and unlinks the
// socket file.
#ifndef OUTPOST_INGEST_INGEST_SERVER_H
#define OUTPOST_INGEST_INGEST_SERVER_H

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "outpost/status.h"
#include "outpost/store.h"

namespace outpost::ingest {

// Where outpostd listens unless configured otherwise (systemd's
// RuntimeDirectory=outpost creates /run/outpost).
inline constexpr char kDefaultSocketPath[] = "/run/outpost/outpostd.sock";

struct ServerOptions {
    // File system path of the socket (at most 107 bytes). A stale socket file
    // there (nobody listening) is replaced; a live one is refused.
    std::string socket_path;
    // Permission bits of the socket file: who may connect (write permission
    // is what connect() checks). 0660: owner and group.
    unsigned socket_mode = 0660;
    // Connections served at the same time; more are answered "busy" and closed.
    int max_clients = 16;
    // Longest request line, newline excluded. A longer line is answered
    // "request_too_large" and the connection closed (framing is lost).
    size_t max_request_bytes = 65536;
    // A connection that sends no complete request for this long is closed,
    // and so is one whose answer cannot be sent for this long (a client that
    // stopped reading).
    std::chrono::milliseconds idle_timeout{30000};
};

// Counters since start. `clients` is the number of connections open now.
struct ServerStats {
    uint64_t connections = 0;      // accepted (including those answered busy)
    uint64_t requests = 0;         // request lines answered
    uint64_t alarms_recorded = 0;  // raise_alarm answered ok (duplicates included)
    uint64_t errors = 0;           // answers with ok=false
    int clients = 0;
};

// Returns the daemon's live status for {"op":"status"}; called on a
// connection thread, so it must be thread-safe. May be empty: the answer then
// holds the store figures and the ingest counters.
using StatusProvider = std::function<nlohmann::json()>;

class ServerImpl;

class Server final {
  public:
    // Binds and listens on options.socket_path and starts serving. `store`
    // is borrowed and must outlive the Server.
    // Errors: kInvalidArgument (empty or too long path, a non-socket file in
    // the way, bad limits), kBusy ("another outpostd listens on PATH"),
    // kIoError (socket, bind, chmod or listen failed; the message names the
    // path and errno).
    static Result<std::unique_ptr<Server>> start(Store& store, const ServerOptions& options,
                                                 StatusProvider status = {});
    // Calls stop().
    ~Server();
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;

    // Stops accepting, finishes the requests being executed, closes all
    // connections, joins the threads and unlinks the socket file (only if it
    // is still the one this server created). Idempotent; blocks until done.
    void stop();
    ServerStats stats() const;

  private:
    explicit Server(std::unique_ptr<ServerImpl> impl);
    std::unique_ptr<ServerImpl> impl_;
};

}  // namespace outpost::ingest

#endif  // OUTPOST_INGEST_INGEST_SERVER_H
