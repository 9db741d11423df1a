#include "proof/observer.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "child_process.h"
#include "proof/child.h"

namespace outpost::torture {
namespace {

constexpr const char* kSubscriberId = "outpost-torture-observer";

int free_loopback_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    int port = 0;
    if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0) {
        port = ntohs(address.sin_port);
    }
    if (fd >= 0) ::close(fd);
    return port;
}

bool accepts_connections(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<uint16_t>(port));
    const bool ok =
        fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
    if (fd >= 0) ::close(fd);
    return ok;
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
}

}  // namespace

std::string find_program(const std::string& program) {
    return testing::find_program(program);
}

std::unique_ptr<LoggedProcess> LoggedProcess::spawn(const std::vector<std::string>& argv,
                                                    const std::string& log_path, std::string* error,
                                                    const std::vector<std::string>& extra_env) {
    try {
        const pid_t pid = testing::spawn_logged(argv, log_path, extra_env);
        return std::unique_ptr<LoggedProcess>(new LoggedProcess(pid, log_path));
    } catch (const std::runtime_error& failure) {
        *error = failure.what();
        return nullptr;
    }
}

LoggedProcess::~LoggedProcess() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    if (!poll_until([this] { return ::waitpid(pid_, nullptr, WNOHANG) == pid_; },
                    std::chrono::seconds(5))) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
    }
}

void LoggedProcess::kill_now() {
    if (!running()) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &wait_status_, 0);
    pid_ = -1;
}

bool LoggedProcess::running() {
    if (pid_ <= 0) return false;
    if (::waitpid(pid_, &wait_status_, WNOHANG) == pid_) pid_ = -1;
    return pid_ > 0;
}

std::string LoggedProcess::log() const {
    return read_text(log_path_);
}

std::unique_ptr<MqttObserver> MqttObserver::start(const std::string& dir, std::string* error) {
    if (find_program("mosquitto").empty() || find_program("mosquitto_sub").empty()) {
        *error =
            "mosquitto and mosquitto_sub are needed (apt-get install mosquitto "
            "mosquitto-clients)";
        return nullptr;
    }
    std::unique_ptr<MqttObserver> observer(new MqttObserver());
    observer->dir_ = dir;
    observer->port_ = free_loopback_port();
    const std::string config = dir + "/mosquitto.conf";
    // Queue limits off: a subscriber that falls behind must lose nothing,
    // or a drop at the broker would read as a loss by the gateway.
    std::ofstream(config) << "listener " << observer->port_ << " 127.0.0.1\n"
                          << "allow_anonymous true\nuser root\npersistence false\n"
                          << "max_queued_messages 0\nmax_queued_bytes 0\n"
                          << "log_dest stderr\nlog_type error\nlog_type warning\n"
                          << "log_type subscribe\n";
    *error = observer->start_broker();
    if (error->empty()) *error = observer->start_subscriber();
    if (!error->empty()) return nullptr;
    const std::string subscribed = std::string(kSubscriberId) + " 1 outpost/#";
    if (!poll_until([&] { return observer->broker_->log().find(subscribed) != std::string::npos; },
                    std::chrono::seconds(10))) {
        *error = "mosquitto_sub never subscribed:\n" + observer->broker_->log();
        return nullptr;
    }
    return observer;
}

std::string MqttObserver::start_broker() {
    std::string error;
    broker_ = LoggedProcess::spawn({find_program("mosquitto"), "-c", dir_ + "/mosquitto.conf"},
                                   dir_ + "/mosquitto.log", &error);
    if (!broker_) return error;
    const int port = port_;
    if (!poll_until([&] { return accepts_connections(port); }, std::chrono::seconds(10))) {
        return "mosquitto did not listen on port " + std::to_string(port) + ":\n" + broker_->log();
    }
    return "";
}

std::string MqttObserver::start_subscriber() {
    std::string error;
    output_ = dir_ + "/subscriber.out";
    subscriber_ = LoggedProcess::spawn(
        {find_program("mosquitto_sub"), "-h", "127.0.0.1", "-p", std::to_string(port_), "-V",
         "mqttv5", "-q", "1", "-v", "-t", "outpost/#", "-i", kSubscriberId},
        output_, &error);
    return subscriber_ ? "" : error;
}

std::string MqttObserver::restart_broker() {
    broker_->kill_now();
    std::string error = start_broker();
    // mosquitto_sub reconnects by itself (and subscribes again); if it gave
    // up meanwhile, a new one appends to the same output.
    if (error.empty() && !subscriber_->running()) error = start_subscriber();
    return error;
}

std::map<std::string, int> MqttObserver::arrivals() const {
    std::map<std::string, int> counts;
    std::stringstream lines(read_text(output_));
    for (std::string line; std::getline(lines, line);) {
        const size_t space = line.find(' ');
        if (space == std::string::npos || line.find("/alarm/") > space) continue;
        const nlohmann::json envelope =
            nlohmann::json::parse(line.substr(space + 1), nullptr, false);
        if (envelope.is_object()) counts[envelope.value("eventId", "")]++;
    }
    return counts;
}

bool MqttObserver::healthy() {
    return broker_->running() && subscriber_->running();
}

std::string MqttObserver::describe_failure() const {
    const std::string output = read_text(output_);
    return "mosquitto log:\n" + broker_->log() + "\nmosquitto_sub output (last 2000 bytes):\n" +
           output.substr(output.size() > 2000 ? output.size() - 2000 : 0);
}

}  // namespace outpost::torture
