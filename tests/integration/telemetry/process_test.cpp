// outpostd runs the telemetry lane in a process of its own, supervised:
// against a real mosquitto, an independent telemetry subscriber
// (mosquitto_sub) and the daemon's status document. Outcomes only: alarms
// are acknowledged while the telemetry process is frozen, and a killed
// telemetry process is replaced and carries datagrams again.
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "daemon_harness.h"
#include "eventually.h"
#include "ingest/client.h"
#include "telemetry_subscriber.h"
#include "unix_datagram.h"

using nlohmann::json;
using namespace outpost::testing;
using namespace std::chrono_literals;

namespace {

// The daemon's status document (the socket's "status" operation).
json daemon_status(const std::string& socket) {
    auto client = outpost::ingest::Client::connect(socket);
    if (!client.is_ok()) return json::object();
    auto answer = (*client)->call({{"op", "status"}}, 30s);
    return answer.is_ok() ? answer->value("status", json::object()) : json::object();
}

int64_t telemetry_pid(const std::string& socket) {
    const json status = daemon_status(socket);
    const json telemetry = status.value("telemetry", json::object());
    return telemetry.is_object() ? telemetry.value("process_pid", int64_t{-1}) : -1;
}

// Raises `count` alarms through the socket; true when each was recorded.
bool raise(const std::string& socket, int count) {
    auto client = outpost::ingest::Client::connect(socket);
    if (!client.is_ok()) return false;
    for (int i = 0; i < count; ++i) {
        json request = {{"op", "raise_alarm"},
                        {"alarm",
                         {{"deviceId", "pump-" + std::to_string(i % 3)},
                          {"alarmType", "OVER_TEMPERATURE"},
                          {"severity", "major"}}}};
        auto answer = (*client)->call(request, 30s);
        if (!answer.is_ok() || !answer->value("ok", false)) return false;
    }
    return true;
}

uint64_t alarms_sent(const std::string& socket) {
    return daemon_status(socket).value("publisher", json::object()).value("sent", uint64_t{0});
}

bool received_payload(const TelemetrySubscriber& subscriber, const std::string& payload) {
    for (const auto& message : subscriber.messages()) {
        if (message.payload == payload) return true;
    }
    return false;
}

// outpostd with a telemetry socket, and a telemetry subscriber watching;
// `scheduling` is telemetry.scheduling ("" leaves the default).
struct Gateway {
    explicit Gateway(std::string scheduling_name = "") : scheduling(std::move(scheduling_name)) {}
    const std::string scheduling;  // before `daemon`, which reads it
    Mosquitto broker;
    TempDir dir;
    std::string alarms = dir.file("alarms.sock");
    std::string telemetry = dir.file("telemetry.sock");
    TelemetrySubscriber subscriber{broker, "telemetry-watch"};
    DaemonProcess daemon{dir, config()};

    json config() const {
        json config = daemon_config(dir, broker);
        config["telemetry"] = {{"datagram_socket", telemetry}};
        if (!scheduling.empty()) config["telemetry"]["scheduling"] = scheduling;
        return config;
    }
    // The telemetry process once outpostd reports one; -1 if it never does.
    int64_t telemetry_process() const {
        int64_t pid = -1;
        eventually([&] { return (pid = telemetry_pid(alarms)) > 0; });
        return pid;
    }
};

// Per thread of `pid`: {scheduling policy, nice} from /proc/PID/task/TID/stat
// (fields 41 and 19).
std::vector<std::pair<int, int>> thread_scheduling(int64_t pid) {
    std::vector<std::pair<int, int>> out;
    const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
    for (const auto& task : std::filesystem::directory_iterator(tasks)) {
        std::ifstream in(task.path() / "stat");
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const size_t close = text.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream fields(text.substr(close + 2));  // from field 3
        std::vector<std::string> field(3);
        for (std::string item; fields >> item;) field.push_back(item);
        if (field.size() <= 41) continue;
        out.emplace_back(std::stoi(field[41]), std::stoi(field[19]));
    }
    return out;
}

}  // namespace

TEST_CASE("alarms are acknowledged while the telemetry process is frozen", "[telemetry]") {
    Gateway gateway;
    const int64_t child = gateway.telemetry_process();
    INFO(gateway.daemon.log_line());
    REQUIRE(child > 0);
    REQUIRE(child != gateway.daemon.pid());
    REQUIRE(eventually([&] {
        return send_datagram(gateway.telemetry, "pump-1/temp\nbefore") &&
               received_payload(gateway.subscriber, "before");
    }));

    // Every thread of the telemetry process stops: its paho threads too.
    REQUIRE(::kill(static_cast<pid_t>(child), SIGSTOP) == 0);
    constexpr int kAlarms = 30;
    REQUIRE(raise(gateway.alarms, kAlarms));
    send_datagram(gateway.telemetry, "pump-1/temp\nwhile-frozen");
    CHECK(eventually([&] { return alarms_sent(gateway.alarms) == kAlarms; }));
    CHECK_FALSE(received_payload(gateway.subscriber, "while-frozen"));

    // Thawed, the telemetry process sends what waited in its socket.
    REQUIRE(::kill(static_cast<pid_t>(child), SIGCONT) == 0);
    CHECK(eventually([&] { return received_payload(gateway.subscriber, "while-frozen"); }));
    CHECK(gateway.daemon.terminate() == 0);
}

TEST_CASE("a killed telemetry process is started again and carries datagrams", "[telemetry]") {
    Gateway gateway;
    const int64_t first = gateway.telemetry_process();
    INFO(gateway.daemon.log_line());
    REQUIRE(first > 0);

    REQUIRE(::kill(static_cast<pid_t>(first), SIGKILL) == 0);
    int64_t second = -1;
    REQUIRE(eventually(
        [&] {
            second = telemetry_pid(gateway.alarms);
            return second > 0 && second != first;
        },
        30s));
    CHECK(daemon_status(gateway.alarms)["telemetry"].value("process_restarts", 0) == 1);
    // The new process binds the same socket path; applications keep sending.
    CHECK(eventually([&] {
        return send_datagram(gateway.telemetry, "pump-2/rpm\nafter-restart") &&
               received_payload(gateway.subscriber, "after-restart");
    }));
    // Alarms were never in that process.
    REQUIRE(raise(gateway.alarms, 5));
    CHECK(eventually([&] { return alarms_sent(gateway.alarms) == 5; }));
    CHECK(gateway.daemon.terminate() == 0);
    CHECK(::kill(static_cast<pid_t>(second), 0) != 0);  // stopped with outpostd
}

TEST_CASE(
    "the telemetry process runs every thread at its configured scheduling, outpostd at its own",
    "[telemetry]") {
    const std::string name = GENERATE(as<std::string>{}, "", "nice", "idle");
    const int policy = name == "idle" ? SCHED_IDLE : SCHED_OTHER;
    Gateway gateway(name);
    const int64_t child = gateway.telemetry_process();
    INFO("scheduling \"" << name << "\": " << gateway.daemon.log_line());
    REQUIRE(child > 0);
    // Connected and carrying datagrams: paho's threads exist by now.
    REQUIRE(eventually([&] {
        return send_datagram(gateway.telemetry, "pump-1/temp\nrunning") &&
               received_payload(gateway.subscriber, "running");
    }));
    const auto threads = thread_scheduling(child);
    CHECK(threads.size() >= 4);  // main, lane sender, socket reader, paho's
    for (const auto& [thread_policy, nice] : threads) {
        CHECK(thread_policy == policy);
        CHECK(nice == 10);
    }
    // The alarm path keeps what it was started with (this test's own nice).
    const int own_nice = ::getpriority(PRIO_PROCESS, 0);
    for (const auto& [thread_policy, nice] : thread_scheduling(gateway.daemon.pid())) {
        CHECK(thread_policy == SCHED_OTHER);
        CHECK(nice == own_nice);
    }
    CHECK(gateway.daemon.terminate() == 0);
}
