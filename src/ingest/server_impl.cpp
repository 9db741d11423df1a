// Threads of the ingestion server. Stopping works through one pipe: stop()
// writes a byte and never reads it, so every poll() on the read end (the
// acceptor's and each connection's) wakes and stays awake. A connection
// thread checks the flag only between requests, so a request being executed
// (a record_alarm waiting for its durable commit) always gets its answer,
// unless the client stops reading: sends time out after idle_timeout.
#include "ingest/server_impl.h"

#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>

#include "ingest/line_io.h"
#include "ingest/protocol.h"

namespace outpost::ingest {

ServerImpl::ServerImpl(Store& store, const ServerOptions& options, StatusProvider status,
                       std::unique_ptr<ListenSocket> listener, int wake_read, int wake_write)
    : options_(options),
      handler_(store, std::move(status), [this] { return stats(); }),
      listener_(std::move(listener)),
      wake_read_(wake_read),
      wake_write_(wake_write) {}

ServerImpl::~ServerImpl() {
    stop();
    ::close(wake_read_);
    ::close(wake_write_);
}

void ServerImpl::start_acceptor() {
    acceptor_ = std::thread([this] {
        pthread_setname_np(pthread_self(), "ingest-accept");
        accept_loop();
    });
}

void ServerImpl::stop() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (stopped_) return;
        stopped_ = true;
    }
    stopping_ = true;
    char byte = 1;
    while (::write(wake_write_, &byte, 1) < 0 && errno == EINTR) {
    }
    if (acceptor_.joinable()) acceptor_.join();
    listener_->close();  // no new clients; the socket file goes away
    std::list<std::unique_ptr<Connection>> remaining;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        remaining.swap(connections_);
    }
    for (auto& connection : remaining) connection->thread.join();
}

ServerStats ServerImpl::stats() const {
    ServerStats stats;
    stats.connections = connections_accepted_.load();
    stats.requests = requests_.load();
    stats.alarms_recorded = alarms_recorded_.load();
    stats.errors = errors_.load();
    stats.clients = clients_.load();
    return stats;
}

void ServerImpl::accept_loop() {
    for (;;) {
        pollfd fds[2] = {{listener_->fd(), POLLIN, 0}, {wake_read_, POLLIN, 0}};
        int ready = ::poll(fds, 2, -1);
        if (stopping_) return;
        if (ready < 0) continue;  // EINTR
        join_finished_connections();
        if (!(fds[0].revents & POLLIN)) continue;
        int fd = ::accept4(listener_->fd(), nullptr, nullptr, SOCK_CLOEXEC);
        if (fd < 0) {
            // Out of descriptors or memory: wait a little (or for stop)
            // instead of spinning on a listener that stays readable.
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
                pollfd wake{wake_read_, POLLIN, 0};
                ::poll(&wake, 1, 100);
            }
            continue;
        }
        ++connections_accepted_;
        admit(fd);
    }
}

void ServerImpl::admit(int fd) {
    // A client that stops reading its answers must not pin a thread (and
    // stop()) forever: a send blocked this long fails and closes the
    // connection.
    auto idle_ms = options_.idle_timeout.count();
    timeval send_timeout{static_cast<time_t>(idle_ms / 1000),
                         static_cast<suseconds_t>((idle_ms % 1000) * 1000)};
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &send_timeout, sizeof send_timeout);
    if (clients_.load() >= options_.max_clients) {
        count_error_and_send(fd, status_code_name(StatusCode::kBusy),
                             "too many clients (" + std::to_string(options_.max_clients) +
                                 " connected); retry later");
        ::close(fd);
        return;
    }
    ++clients_;
    std::lock_guard<std::mutex> lock(mutex_);
    connections_.push_back(std::make_unique<Connection>());
    Connection* connection = connections_.back().get();
    // The thread marks itself done under mutex_, so it waits for this
    // assignment to finish before it can be joined.
    connection->thread = std::thread([this, fd, connection] {
        pthread_setname_np(pthread_self(), "ingest-conn");
        serve(fd, connection);
    });
}

void ServerImpl::join_finished_connections() {
    std::list<std::unique_ptr<Connection>> finished;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        for (auto it = connections_.begin(); it != connections_.end();) {
            auto next = std::next(it);
            if ((*it)->done) finished.splice(finished.end(), connections_, it);
            it = next;
        }
    }
    for (auto& connection : finished) connection->thread.join();
}

void ServerImpl::count_error_and_send(int fd, const char* code, const std::string& message) {
    ++requests_;
    ++errors_;
    write_all(fd, to_line(error_answer(code, message)));
}

bool ServerImpl::answer(int fd, const std::string& line) {
    HandledRequest handled = handler_.handle(line);
    ++requests_;
    if (handled.alarm_recorded) ++alarms_recorded_;
    if (!handled.answer.value("ok", false)) ++errors_;
    return write_all(fd, to_line(handled.answer));
}

void ServerImpl::serve(int fd, Connection* self) {
    LineReader reader(fd, options_.max_request_bytes, wake_read_);
    std::string line;
    bool open = true;
    while (open && !stopping_) {
        switch (reader.next(line, options_.idle_timeout)) {
            case LineReader::Outcome::kLine:
                open = answer(fd, line);
                break;
            case LineReader::Outcome::kTooLong:
                // The rest of this line would be read as new requests: close.
                count_error_and_send(fd, kRequestTooLarge,
                                     "request line longer than " +
                                         std::to_string(options_.max_request_bytes) +
                                         " bytes; closing the connection");
                open = false;
                break;
            case LineReader::Outcome::kTimedOut:
                write_all(fd, to_line(error_answer(status_code_name(StatusCode::kTimeout),
                                                   "idle for too long; closing the connection")));
                open = false;
                break;
            case LineReader::Outcome::kStopping:
                break;  // the loop ends; the client hears why below
            default:    // closed by the peer or a read error
                open = false;
                break;
        }
    }
    if (stopping_ && open) {
        write_all(fd, to_line(error_answer(status_code_name(StatusCode::kClosed),
                                           "outpostd is stopping; reconnect later")));
    }
    ::close(fd);
    --clients_;
    std::lock_guard<std::mutex> lock(mutex_);
    self->done = true;
}

}  // namespace outpost::ingest
