// A real mosquitto broker for one test (or one bench run), on a free
// loopback port, in the foreground, with its own config and log in a temp
// directory. It can be stopped and started again on the same port, to
// simulate an outage. Tests that need it call mosquitto_available() first
// and report SKIP (TAP "1..0 # SKIP", or exit 77 outside TAP) without it.
//
// Errors throw std::runtime_error with the tail of the broker's log: this is
// test scaffolding, not product code.
#ifndef OUTPOST_TESTS_MOSQUITTO_FIXTURE_H
#define OUTPOST_TESTS_MOSQUITTO_FIXTURE_H

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "child_process.h"
#include "tap_text.h"
#include "temp_dir.h"

namespace outpost::testing {

inline bool mosquitto_available() {
    return !find_program("mosquitto").empty();
}

// For a test binary's main(): true when the caller should return at once,
// having told the harness this test is skipped.
inline bool skip_without_mosquitto(int argc, char** argv, int* exit_code) {
    if (mosquitto_available()) return false;
    bool tap = false;
    for (int i = 1; i + 1 < argc; ++i) {
        if (std::string(argv[i]) == "--reporter" && std::string(argv[i + 1]) == "tap") tap = true;
    }
    if (tap) {
        std::printf("1..0 # SKIP mosquitto is not installed (apt-get install mosquitto)\n");
        *exit_code = 0;
    } else {
        std::fprintf(stderr, "SKIP: mosquitto is not installed\n");
        *exit_code = 77;
    }
    return true;
}

// A loopback TCP port nobody listens on right now.
inline int free_loopback_port() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;
    socklen_t length = sizeof address;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        if (fd >= 0) ::close(fd);
        throw std::runtime_error("no free loopback port");
    }
    ::close(fd);
    return ntohs(address.sin_port);
}

// SIGTERM, then SIGKILL if `pid` has not exited within `grace`.
inline void terminate_child(pid_t pid, std::chrono::milliseconds grace = std::chrono::seconds(5)) {
    if (pid <= 0) return;
    ::kill(pid, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + grace;
    while (std::chrono::steady_clock::now() < deadline) {
        if (::waitpid(pid, nullptr, WNOHANG) == pid) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ::kill(pid, SIGKILL);
    ::waitpid(pid, nullptr, 0);
}

inline std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

inline std::string tail_of(const std::string& text, size_t lines) {
    size_t at = text.size();
    for (size_t seen = 0; at > 0 && seen <= lines; --at) {
        if (text[at - 1] == '\n') ++seen;
    }
    return text.substr(at);
}

// Waits until `ready(log, log_start)` holds for the log of the broker just
// spawned as `pid`. Throws with the log's tail when the broker exits first
// (pid becomes -1) or when `timeout` passes (the broker is stopped).
template <typename Ready>
inline void await_broker_ready(pid_t& pid, const std::string& log_path, size_t log_start,
                               const std::string& name, std::chrono::milliseconds timeout,
                               Ready ready) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        const std::string text = read_file(log_path);
        if (ready(text, log_start)) return;
        int status = 0;
        if (::waitpid(pid, &status, WNOHANG) == pid) {
            pid = -1;
            throw std::runtime_error(name + " exited at start (status " + std::to_string(status) +
                                     "):\n" + tail_of(text, 30));
        }
        if (std::chrono::steady_clock::now() > deadline) {
            terminate_child(pid);
            pid = -1;
            throw std::runtime_error(name + " not ready after " + std::to_string(timeout.count()) +
                                     " ms:\n" + tail_of(read_file(log_path), 30));
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

// A TLS listener instead of plain TCP. Paths are PEM files.
struct MosquittoTls {
    std::string ca_file;    // trust anchor for client certificates
    std::string cert_file;  // the broker's certificate
    std::string key_file;
    // Mutual TLS: a client without a certificate from ca_file is refused,
    // and the certificate's CN becomes the user name (ACL patterns' %u).
    bool require_certificate = true;
};

struct MosquittoConfig {
    bool allow_anonymous = true;
    // Set: the one listener speaks TLS (uri() says "ssl://").
    std::optional<MosquittoTls> tls;
    // user name -> password, written with mosquitto_passwd.
    std::vector<std::pair<std::string, std::string>> users;
    // acl_file contents; empty means no ACL file (everything allowed).
    std::string acl;
    // Also the Receive Maximum announced to v5 clients.
    int max_inflight_messages = 20;
    int max_queued_messages = 100000;
    // Keep sessions and queued messages across a stop/start (saved on SIGTERM).
    bool persistence = false;
    // Log every packet (log_type all): tests read PUBACKs from the log. Off,
    // the broker logs as the shipped configuration does (errors, warnings,
    // notices and connections), which a benchmark needs: logging every
    // packet of a fleet would be most of the broker's CPU.
    bool log_all = true;
    // Appended verbatim.
    std::string extra;
};

class Mosquitto final {
  public:
    explicit Mosquitto(MosquittoConfig config = {})
        : config_(std::move(config)), port_(free_loopback_port()) {
        program_ = find_program("mosquitto");
        if (program_.empty()) throw std::runtime_error("mosquitto is not installed");
        write_config();
        start();
    }
    ~Mosquitto() { stop(); }
    Mosquitto(const Mosquitto&) = delete;
    Mosquitto& operator=(const Mosquitto&) = delete;

    int port() const { return port_; }
    std::string uri() const {
        return (config_.tls ? "ssl://127.0.0.1:" : "tcp://127.0.0.1:") + std::to_string(port_);
    }
    const std::string& directory() const { return dir_.path(); }
    std::string log_path() const { return dir_.file("mosquitto.log"); }
    std::string log() const { return read_file(log_path()); }
    std::string log_tail(size_t lines = 30) const { return tail_of(log(), lines); }
    bool running() const { return pid_ > 0; }
    // The broker process, -1 when stopped (benchmarks read its CPU time).
    pid_t pid() const { return pid_; }

    // Starts the broker on the same port and waits for its ready line.
    void start(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
        if (pid_ > 0) return;
        const size_t log_start = log().size();
        pid_ = spawn_logged({program_, "-c", dir_.file("mosquitto.conf")}, log_path());
        await_broker_ready(pid_, log_path(), log_start, "mosquitto", timeout,
                           [](const std::string& text, size_t from) {
                               const size_t ready = text.find(" running", from);
                               return ready != std::string::npos &&
                                      text.rfind("mosquitto version", ready) != std::string::npos;
                           });
    }

    // Replaces the ACL file and makes the running broker reload it (SIGHUP).
    // Returns once the broker logged the reload.
    void replace_acl(const std::string& acl) {
        std::ofstream(dir_.file("acl")) << acl;
        const size_t log_start = log().size();
        ::kill(pid_, SIGHUP);
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
        while (log().find("Reloading config", log_start) == std::string::npos) {
            if (std::chrono::steady_clock::now() > deadline) {
                throw std::runtime_error("mosquitto did not reload:\n" + log_tail());
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
    }

    // SIGTERM and wait: a clean broker shutdown (it saves state if persistent).
    void stop() {
        terminate_child(pid_);
        pid_ = -1;
    }

    // SIGKILL and wait: a crash. A persistent broker comes back with what
    // it saved last (autosave_interval, or its last clean shutdown).
    void kill() {
        if (pid_ <= 0) return;
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
        pid_ = -1;
    }

  private:
    void write_config() {
        std::ofstream conf(dir_.file("mosquitto.conf"));
        conf << "listener " << port_ << " 127.0.0.1\n"
             << "allow_anonymous " << (config_.allow_anonymous ? "true" : "false") << "\n"
             << (config_.log_all ? "log_type all\n"
                                 : "log_type error\nlog_type warning\nlog_type notice\n"
                                   "log_type information\n")
             << "log_dest stderr\n"
             << "user root\n"
             << "max_inflight_messages " << config_.max_inflight_messages << "\n"
             << "max_queued_messages " << config_.max_queued_messages << "\n";
        if (config_.tls) {
            conf << "cafile " << config_.tls->ca_file << "\n"
                 << "certfile " << config_.tls->cert_file << "\n"
                 << "keyfile " << config_.tls->key_file << "\n";
            if (config_.tls->require_certificate) {
                conf << "require_certificate true\n"
                     << "use_identity_as_username true\n";
            }
        }
        if (config_.persistence) {
            conf << "persistence true\n"
                 << "persistence_location " << dir_.path() << "/\n";
        } else {
            conf << "persistence false\n";
        }
        if (!config_.users.empty()) {
            const std::string passwd = find_program("mosquitto_passwd");
            if (passwd.empty()) throw std::runtime_error("mosquitto_passwd is not installed");
            const std::string file = dir_.file("passwords");
            bool first = true;
            for (const auto& [user, password] : config_.users) {
                std::vector<std::string> argv = {passwd, "-b"};
                if (first) argv.push_back("-c");
                argv.insert(argv.end(), {file, user, password});
                pid_t pid = spawn_logged(argv, dir_.file("mosquitto_passwd.log"));
                int status = 0;
                ::waitpid(pid, &status, 0);
                if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                    throw std::runtime_error("mosquitto_passwd failed: " +
                                             read_file(dir_.file("mosquitto_passwd.log")));
                }
                first = false;
            }
            conf << "password_file " << file << "\n";
        }
        if (!config_.acl.empty()) {
            std::ofstream(dir_.file("acl")) << config_.acl;
            conf << "acl_file " << dir_.file("acl") << "\n";
        }
        conf << config_.extra;
    }

    MosquittoConfig config_;
    TempDir dir_;
    int port_;
    std::string program_;
    pid_t pid_ = -1;
};

// An ACL where each user writes only under outpost/<its name>/ and
// "observer" reads everything; with `denied_topic`, `gateway` is also refused
// that one topic (a v5 PUBACK 0x87, Not authorized).
inline std::string gateway_acl(const std::string& gateway, const std::string& denied_topic = "") {
    std::string acl =
        "pattern write outpost/%u/#\n"
        "\n"
        "user observer\n"
        "topic read #\n";
    if (!denied_topic.empty()) acl += "\nuser " + gateway + "\ntopic deny " + denied_topic + "\n";
    return acl;
}

// A broker with log-ins and gateway_acl(): `gateway` with password
// "gateway-secret", "observer" with "observer-secret".
inline MosquittoConfig gateway_acl_config(const std::string& gateway,
                                          const std::string& denied_topic = "") {
    MosquittoConfig config;
    config.allow_anonymous = false;
    config.users = {{gateway, "gateway-secret"}, {"observer", "observer-secret"}};
    config.acl = gateway_acl(gateway, denied_topic);
    return config;
}

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_MOSQUITTO_FIXTURE_H
