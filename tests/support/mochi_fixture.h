// The second MQTT v5 broker for the bridge tests: mochi-mqtt v2, built by
// scripts/mqtt-broker.sh into one binary named by OUTPOST_MOCHI_BROKER. Same
// shape as Mosquitto (mosquitto_fixture.h): a free loopback port, the
// foreground process, its log in a temp directory, stop and start again on
// the same port. The log has mosquitto's "Received PUBACK from CLIENT" line
// for each acknowledgement (scripts/mqtt-broker/main.go), so the tests count
// acknowledgements the same way on both brokers.
//
// What differs from mosquitto 2.0.11 (also in README, "Brokers"):
//  - sessions live in memory only: they survive a client's disconnect, not a
//    broker restart (mosquitto with persistence keeps them);
//  - a shared subscription delivers each message to one member picked at
//    random among all members, connected or not (mosquitto: round-robin);
//    a disconnected persistent member gets its share queued for its return,
//    as with mosquitto;
//  - the Receive Maximum announced is 1024 (mosquitto: max_inflight_messages,
//    20 by default), and up to 8192 unacknowledged messages are kept per
//    session (mosquitto: max_queued_messages);
//  - no password file or ACL here: the tests that need them stay on mosquitto.
//
// Errors throw std::runtime_error with the tail of the log.
#ifndef OUTPOST_TESTS_MOCHI_FIXTURE_H
#define OUTPOST_TESTS_MOCHI_FIXTURE_H

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

#include "mosquitto_fixture.h"
#include "temp_dir.h"

namespace outpost::testing {

// The broker binary named by OUTPOST_MOCHI_BROKER, or "" when unset or not
// executable.
inline std::string mochi_broker_program() {
    const char* path = std::getenv("OUTPOST_MOCHI_BROKER");
    if (path == nullptr || *path == '\0' || ::access(path, X_OK) != 0) return "";
    return path;
}

class MochiBroker final {
  public:
    MochiBroker() : port_(free_loopback_port()), program_(mochi_broker_program()) {
        if (program_.empty()) throw std::runtime_error("OUTPOST_MOCHI_BROKER is not set");
        start();
    }
    ~MochiBroker() { stop(); }
    MochiBroker(const MochiBroker&) = delete;
    MochiBroker& operator=(const MochiBroker&) = delete;

    int port() const { return port_; }
    std::string uri() const { return "tcp://127.0.0.1:" + std::to_string(port_); }
    std::string log_path() const { return dir_.file("broker.log"); }
    std::string log() const { return read_file(log_path()); }
    std::string log_tail(size_t lines = 30) const { return tail_of(log(), lines); }
    bool running() const { return pid_ > 0; }

    // Starts the broker on the same port and waits for its ready line.
    void start(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
        if (pid_ > 0) return;
        const size_t log_start = log().size();
        pid_ =
            spawn_logged({program_, "-listen", "127.0.0.1:" + std::to_string(port_)}, log_path());
        await_broker_ready(pid_, log_path(), log_start, "mochi broker", timeout,
                           [](const std::string& text, size_t from) {
                               return text.find(" running on ", from) != std::string::npos;
                           });
    }

    void stop() {
        terminate_child(pid_);
        pid_ = -1;
    }

  private:
    TempDir dir_;
    int port_;
    std::string program_;
    pid_t pid_ = -1;
};

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_MOCHI_FIXTURE_H
