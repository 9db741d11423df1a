// The e2e campaign's view from outside the gateway: its own mosquitto on a
// free loopback port, and mosquitto_sub (not our code, not paho) recording
// every alarm that arrives. Both run for the whole campaign; only the
// gateway children are killed.
#ifndef OUTPOST_PROOF_OBSERVER_H
#define OUTPOST_PROOF_OBSERVER_H

#include <sys/types.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace outpost::torture {

// A child process with stdout and stderr appended to a file; SIGTERM, then
// SIGKILL after a grace period, when destroyed.
class LoggedProcess final {
  public:
    // nullptr with *error set when it cannot be started. `extra_env`
    // ("NAME=value") is added to this process's environment for the child,
    // replacing an inherited variable of the same name
    // (tests/support/child_process.h).
    static std::unique_ptr<LoggedProcess> spawn(const std::vector<std::string>& argv,
                                                const std::string& log_path, std::string* error,
                                                const std::vector<std::string>& extra_env = {});
    ~LoggedProcess();
    LoggedProcess(const LoggedProcess&) = delete;
    LoggedProcess& operator=(const LoggedProcess&) = delete;

    bool running();
    // SIGKILL now and reap it (a crash, not a stop); nothing if it ended.
    void kill_now();
    // The wait status once it ended (running() false), else -1.
    int wait_status() const { return wait_status_; }
    const std::string& log_path() const { return log_path_; }
    std::string log() const;

  private:
    LoggedProcess(pid_t pid, std::string log_path) : pid_(pid), log_path_(std::move(log_path)) {}
    pid_t pid_;
    std::string log_path_;
    int wait_status_ = -1;
};

// mosquitto on 127.0.0.1 with a large queue for the subscriber (nothing
// dropped while it falls behind), and mosquitto_sub on "outpost/#" at QoS 1.
class MqttObserver final {
  public:
    // Starts both in `dir` and returns once the subscription is in place;
    // nullptr with *error set (mosquitto missing, not ready in time).
    static std::unique_ptr<MqttObserver> start(const std::string& dir, std::string* error);

    std::string broker_uri() const { return "tcp://127.0.0.1:" + std::to_string(port_); }
    // eventId -> arrivals, over alarm topics, from what mosquitto_sub printed.
    std::map<std::string, int> arrivals() const;
    // SIGKILLs mosquitto (persistence false: every queued message, session
    // and subscription is gone with it) and starts it again on the same port
    // with the same configuration; starts the subscriber again if it gave up.
    // Returns once the broker listens; "" or what failed.
    std::string restart_broker();
    // The broker and the subscriber still run.
    bool healthy();
    std::string describe_failure() const;

  private:
    MqttObserver() = default;
    std::string start_broker();
    std::string start_subscriber();
    std::string dir_;
    int port_ = 0;
    std::string output_;
    std::unique_ptr<LoggedProcess> broker_;
    std::unique_ptr<LoggedProcess> subscriber_;
};

// Full path of `program` on $PATH, /usr/sbin or /usr/local/sbin; "" if absent.
std::string find_program(const std::string& program);

}  // namespace outpost::torture

#endif  // OUTPOST_PROOF_OBSERVER_H
