// What the outpostd tests share: the real outpostd binary (path from
// $OUTPOSTD) in a child process with its own environment, a configuration
// file written for one test, a notify socket standing in for systemd, and a
// plain HTTP GET for the metrics endpoint. posix_spawn, not fork: no test
// code ever runs in the child.
#ifndef OUTPOST_TESTS_DAEMON_HARNESS_H
#define OUTPOST_TESTS_DAEMON_HARNESS_H

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "mosquitto_fixture.h"
#include "service_probes.h"
#include "temp_dir.h"

namespace outpost::testing {

inline std::string outpostd_binary() {
    const char* binary = std::getenv("OUTPOSTD");
    if (binary == nullptr || *binary == '\0') throw std::runtime_error("OUTPOSTD is not set");
    return binary;
}

// A configuration for `dir` and `broker` with fast reconnects, so outcomes
// come quickly (no test asserts on timing). No bridge answers here, so
// receipts are off: SENT is final. Tests patch it as they need.
inline nlohmann::json daemon_config(const TempDir& dir, const Mosquitto& broker) {
    return {
        {"gateway_id", "gw-daemon"},
        {"database", {{"path", dir.file("outbox.db")}}},
        {"broker", {{"uri", broker.uri()}, {"connect_timeout_ms", 2000}}},
        {"publisher",
         {{"reconnect_initial_ms", 50},
          {"reconnect_max_ms", 400},
          {"lease_retry_ms", 50},
          {"receipts", false}}},
        {"ingest", {{"socket", dir.file("alarms.sock")}}},
        {"logging", {{"level", "debug"}}},
    };
}

// A configuration for `dir` whose broker is unreachable (nothing listens on
// port 1): the publisher keeps reconnecting while the alarm socket serves.
inline nlohmann::json offline_daemon_config(const TempDir& dir, const std::string& gateway_id) {
    return {{"gateway_id", gateway_id},
            {"database", {{"path", dir.file("outbox.db")}}},
            {"broker", {{"uri", "tcp://127.0.0.1:1"}, {"connect_timeout_ms", 1000}}},
            {"publisher",
             {{"reconnect_initial_ms", 50},
              {"reconnect_max_ms", 400},
              {"lease_retry_ms", 50},
              {"receipts", false}}},
            {"ingest", {{"socket", dir.file("alarms.sock")}}}};
}

// One outpostd process; SIGKILLed by the destructor if still running.
class DaemonProcess final {
  public:
    // Writes `config` to <dir>/outpostd.json and starts outpostd with the
    // current environment plus `extra_env` ("NAME=value", replacing an
    // inherited variable of the same name); output goes to <dir>/outpostd.log.
    DaemonProcess(const TempDir& dir, const nlohmann::json& config,
                  const std::vector<std::string>& extra_env = {})
        : log_path_(dir.file("outpostd.log")) {
        const std::string config_path = dir.file("outpostd.json");
        std::ofstream(config_path) << config.dump(2);
        pid_ = spawn_logged({outpostd_binary(), "--config", config_path}, log_path_, extra_env);
    }
    ~DaemonProcess() {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }
    DaemonProcess(const DaemonProcess&) = delete;
    DaemonProcess& operator=(const DaemonProcess&) = delete;

    std::string log() const { return read_file(log_path_); }
    // The process id while it runs, -1 after ended() saw it end.
    pid_t pid() const { return pid_; }
    // The log on one line, for INFO (a TAP message must not span lines).
    std::string log_line() const {
        std::string text = log();
        for (char& c : text) c = c == '\n' ? '|' : c;
        return text;
    }
    bool logged(const std::string& text) const { return log().find(text) != std::string::npos; }

    // SIGTERM, then waits up to `limit` for the exit. The exit code, or
    // nullopt when it did not exit in time (it is SIGKILLed then).
    std::optional<int> terminate(std::chrono::milliseconds limit = std::chrono::seconds(30)) {
        if (pid_ <= 0) return exit_code_;  // ended already; never kill(-1, ...)
        ::kill(pid_, SIGTERM);
        const auto deadline = std::chrono::steady_clock::now() + limit;
        while (std::chrono::steady_clock::now() < deadline) {
            if (auto code = ended()) return code;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        return std::nullopt;
    }

    // Without waiting: the exit code (128 + N for signal N) once the process
    // has ended, nullopt while it runs.
    std::optional<int> ended() {
        if (pid_ <= 0) return exit_code_;
        int status = 0;
        if (::waitpid(pid_, &status, WNOHANG) != pid_) return std::nullopt;
        pid_ = -1;
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        return exit_code_;
    }

  private:
    std::string log_path_;
    pid_t pid_ = -1;
    std::optional<int> exit_code_;
};

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_DAEMON_HARNESS_H
