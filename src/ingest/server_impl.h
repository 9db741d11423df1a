// The ingestion server's insides: the listener, the acceptor thread, one
// thread per connection, and the shared counters.
#ifndef OUTPOST_INGEST_SERVER_IMPL_H
#define OUTPOST_INGEST_SERVER_IMPL_H

#include <atomic>
#include <list>
#include <memory>
#include <mutex>
#include <thread>

#include "ingest/ingest_server.h"
#include "ingest/listen_socket.h"
#include "ingest/request_handler.h"

namespace outpost::ingest {

class ServerImpl final {
  public:
    // Takes ownership of `listener` and of the wake pipe descriptors.
    ServerImpl(Store& store, const ServerOptions& options, StatusProvider status,
               std::unique_ptr<ListenSocket> listener, int wake_read, int wake_write);
    ~ServerImpl();

    void start_acceptor();
    void stop();
    ServerStats stats() const;

  private:
    struct Connection {
        std::thread thread;
        bool done = false;  // guarded by ServerImpl::mutex_
    };

    void accept_loop();                    // body of the "ingest-accept" thread
    void admit(int fd);                    // a thread for `fd`, or "busy"
    void serve(int fd, Connection* self);  // body of an "ingest-conn" thread
    bool answer(int fd, const std::string& line);
    void count_error_and_send(int fd, const char* code, const std::string& message);
    void join_finished_connections();

    const ServerOptions options_;
    const RequestHandler handler_;
    std::unique_ptr<ListenSocket> listener_;
    const int wake_read_;  // readable once stop() began: wakes every poll
    const int wake_write_;
    std::atomic<bool> stopping_{false};
    std::thread acceptor_;

    std::mutex mutex_;
    std::list<std::unique_ptr<Connection>> connections_;  // guarded by mutex_
    bool stopped_ = false;                                // guarded by mutex_

    std::atomic<uint64_t> connections_accepted_{0};
    std::atomic<uint64_t> requests_{0};
    std::atomic<uint64_t> alarms_recorded_{0};
    std::atomic<uint64_t> errors_{0};
    std::atomic<int> clients_{0};
};

}  // namespace outpost::ingest

#endif  // OUTPOST_INGEST_SERVER_IMPL_H
