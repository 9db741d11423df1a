// outpostd as systemd runs it, against a real mosquitto, a real database
// file and an independent subscriber (mosquitto_sub): alarms through its
// socket reach the broker, SIGTERM drains without losing a row, the notify
// protocol and the watchdog behave, and the metrics tell what happened.
// Waits are bounded and wait for outcomes; nothing asserts on timing.
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "daemon_harness.h"
#include "ingest/client.h"
#include "publish_harness.h"
#include "unix_datagram.h"

using nlohmann::json;
using outpost::StoreOptions;
using namespace outpost::testing;
using namespace std::chrono_literals;

namespace {

// Raises `count` alarms through the daemon's socket; returns the eventIds.
std::vector<std::string> raise_alarms(const std::string& socket, int count) {
    auto client = outpost::ingest::Client::connect(socket);
    REQUIRE(client.is_ok());
    std::vector<std::string> ids;
    for (int i = 0; i < count; ++i) {
        json request = {{"op", "raise_alarm"},
                        {"alarm",
                         {{"deviceId", "pump-" + std::to_string(i % 3)},
                          {"alarmType", "OVER_TEMPERATURE"},
                          {"severity", "major"}}}};
        auto answer = (*client)->call(request, 30s);
        REQUIRE(answer.is_ok());
        INFO(answer->dump());
        REQUIRE(answer->value("ok", false));
        ids.push_back(answer->value("eventId", ""));
    }
    return ids;
}

bool socket_ready(const std::string& path) {
    return outpost::ingest::Client::connect(path).is_ok();
}

}  // namespace

TEST_CASE("an alarm raised through the daemon's socket reaches an MQTT subscriber", "[daemon]") {
    Mosquitto broker;
    Subscriber subscriber(broker, "independent-sub");
    TempDir dir;
    DaemonProcess daemon(dir, daemon_config(dir, broker));
    REQUIRE(eventually([&] { return socket_ready(dir.file("alarms.sock")); }));

    const std::vector<std::string> ids = raise_alarms(dir.file("alarms.sock"), 5);
    REQUIRE(eventually([&] { return subscriber.event_counts().size() == ids.size(); }));
    const auto counts = subscriber.event_counts();
    for (const std::string& id : ids) CHECK(counts.count(id) == 1);
    for (const Received& message : subscriber.messages()) {
        if (message.envelope.is_object() && message.envelope.value("eventId", "") == ids[0]) {
            CHECK(message.topic == "outpost/gw-daemon/alarm/pump-0");
        }
    }
    CHECK(daemon.terminate() == 0);
}

TEST_CASE(
    "SIGTERM with events in flight exits 0 and loses no row: PUBACKed rows are SENT, "
    "the rest pending and delivered after a restart",
    "[daemon]") {
    Mosquitto broker;
    Subscriber subscriber(broker, "independent-sub");
    TempDir dir;
    constexpr int kAlarms = 3000;
    std::vector<std::string> recorded;
    {
        StoreOptions options;
        options.gateway_id = "gw-daemon";
        auto store = open_store(dir.file("outbox.db"), options);
        for (const auto& event : record_alarms(*store, kAlarms, 8))
            recorded.push_back(event.event_id);
    }
    json config = daemon_config(dir, broker);
    config["publisher"]["window"] = 20;
    config["publisher"]["drain_timeout_ms"] = 10000;
    {
        DaemonProcess daemon(dir, config);
        // Stop as soon as publishing is under way, while most rows wait.
        REQUIRE(eventually([&] { return !subscriber.event_counts().empty(); }));
        REQUIRE(daemon.terminate() == 0);
        INFO(daemon.log_line());
        CHECK(daemon.logged("stopping on"));
        CHECK(daemon.logged("alarm events pending"));
    }
    const OutboxView after_stop = outbox_view(dir.file("outbox.db"));
    CHECK(after_stop.sent + after_stop.pending == kAlarms);
    CHECK(after_stop.dead == 0);
    // Every row marked SENT was seen by the independent subscriber.
    {
        RawSqlite db(dir.file("outbox.db"), SQLITE_OPEN_READONLY);
        const auto counts = subscriber.event_counts();
        int64_t sent_and_seen = 0;
        std::string sent_but_unseen;
        for (const std::string& id : recorded) {
            if (db.integer("SELECT count(*) FROM outbox WHERE state = 1 AND event_id = '" + id +
                           "'") == 0) {
                continue;
            }
            if (counts.count(id) == 1) {
                ++sent_and_seen;
            } else {
                sent_but_unseen += id + " ";
            }
        }
        CHECK(sent_but_unseen.empty());
        CHECK(sent_and_seen == after_stop.sent);
        if (after_stop.pending == 0) WARN("everything was sent before SIGTERM arrived");
    }
    // The rest goes out after a restart: every recorded id reaches the subscriber.
    DaemonProcess restarted(dir, config);
    REQUIRE(eventually([&] { return outbox_view(dir.file("outbox.db")).pending == 0; }, 60s));
    REQUIRE(eventually([&] { return subscriber.event_counts().size() == recorded.size(); }));
    const auto counts = subscriber.event_counts();
    int64_t missing = 0;
    for (const std::string& id : recorded) missing += counts.count(id) == 0 ? 1 : 0;
    CHECK(missing == 0);
    CHECK(restarted.terminate() == 0);
}

TEST_CASE("under systemd it sends READY=1 and WATCHDOG=1 repeatedly, and STOPPING=1 at SIGTERM",
          "[daemon]") {
    Mosquitto broker;
    TempDir dir;
    NotifyListener notify(dir.file("notify.sock"));
    DaemonProcess daemon(dir, daemon_config(dir, broker),
                         {"NOTIFY_SOCKET=" + notify.path(), "WATCHDOG_USEC=1000000"});
    std::vector<std::string> messages;
    REQUIRE(eventually([&] {
        for (auto& message : notify.collect(200ms)) messages.push_back(message);
        return count_assignments(messages, "WATCHDOG=1") >= 3;
    }));
    CHECK(count_assignments(messages, "READY=1") == 1);
    CHECK(messages.front().find("READY=1") != std::string::npos);
    // READY=1 comes once the alarm socket listens.
    CHECK(socket_ready(dir.file("alarms.sock")));
    CHECK(daemon.terminate() == 0);
    CHECK(count_assignments(notify.collect(500ms), "STOPPING=1") == 1);
}

TEST_CASE(
    "an abstract NOTIFY_SOCKET gets READY=1, and a WATCHDOG_PID of another process "
    "turns the pings off",
    "[daemon]") {
    Mosquitto broker;
    TempDir dir;
    NotifyListener notify("@outpostd-test-" + std::to_string(::getpid()));
    DaemonProcess daemon(
        dir, daemon_config(dir, broker),
        {"NOTIFY_SOCKET=" + notify.path(), "WATCHDOG_USEC=1000000", "WATCHDOG_PID=1"});
    std::vector<std::string> messages;
    REQUIRE(eventually([&] {
        for (auto& message : notify.collect(200ms)) messages.push_back(message);
        return count_assignments(messages, "READY=1") == 1;
    }));
    // Two watchdog intervals and more: a daemon that pinged would have by now.
    for (auto& message : notify.collect(3000ms)) messages.push_back(message);
    CHECK(count_assignments(messages, "WATCHDOG=1") == 0);
    CHECK(daemon.terminate() == 0);
}

TEST_CASE("when stderr is the journal stream every log line starts with its syslog priority",
          "[daemon]") {
    Mosquitto broker;
    TempDir dir;
    // The log file exists before the spawn, so its device and inode are
    // what systemd would put in JOURNAL_STREAM for the daemon's stderr.
    std::ofstream(dir.file("outpostd.log")).flush();
    struct stat info {};
    REQUIRE(::stat(dir.file("outpostd.log").c_str(), &info) == 0);
    const std::string stream = std::to_string(info.st_dev) + ":" + std::to_string(info.st_ino);
    DaemonProcess daemon(dir, daemon_config(dir, broker), {"JOURNAL_STREAM=" + stream});
    REQUIRE(eventually([&] { return daemon.logged("ready"); }));
    CHECK(daemon.terminate() == 0);
    std::stringstream lines(daemon.log());
    int info_lines = 0;
    for (std::string line; std::getline(lines, line);) {
        INFO(line);
        CHECK(line.size() > 3);
        CHECK(line[0] == '<');
        CHECK(line[2] == '>');
        info_lines += line.rfind("<6>", 0) == 0 ? 1 : 0;
    }
    CHECK(info_lines > 0);
    CHECK(daemon.logged("<6>ready"));
}

// Stalls the loop with a fault point: left out of builds without them.
TEST_CASE("a stuck publisher loop stops the WATCHDOG=1 pings", "[daemon][fault_points]") {
    Mosquitto broker;
    TempDir healthy_dir;
    TempDir stuck_dir;
    NotifyListener healthy_notify(healthy_dir.file("notify.sock"));
    NotifyListener stuck_notify(stuck_dir.file("notify.sock"));
    DaemonProcess healthy(healthy_dir, daemon_config(healthy_dir, broker),
                          {"NOTIFY_SOCKET=" + healthy_notify.path(), "WATCHDOG_USEC=1000000"});
    json stuck_config = daemon_config(stuck_dir, broker);
    stuck_config["gateway_id"] = "gw-stuck";  // its own client id at the broker
    DaemonProcess stuck(stuck_dir, stuck_config,
                        {"NOTIFY_SOCKET=" + stuck_notify.path(), "WATCHDOG_USEC=1000000",
                         "OUTPOST_FAULT=publish.loop:20:stall"});
    // The stuck daemon notices that its publisher stopped going round.
    REQUIRE(eventually([&] { return stuck.logged("withholding WATCHDOG=1"); }));
    INFO(stuck.log_line());
    // Now count the pings both send over the same generous window.
    healthy_notify.collect(0ms);
    stuck_notify.collect(0ms);
    std::vector<std::string> from_healthy;
    std::vector<std::string> from_stuck;
    std::thread listen_healthy([&] { from_healthy = healthy_notify.collect(4000ms); });
    from_stuck = stuck_notify.collect(4000ms);
    listen_healthy.join();
    CHECK(count_assignments(from_healthy, "WATCHDOG=1") >= 2);
    CHECK(count_assignments(from_stuck, "WATCHDOG=1") == 0);
    CHECK(healthy.terminate() == 0);
}

TEST_CASE("the metrics endpoint and textfile count what happened", "[daemon]") {
    Mosquitto broker;
    Subscriber subscriber(broker, "independent-sub");
    TempDir dir;
    const int port = free_loopback_port();
    json config = daemon_config(dir, broker);
    config["metrics"] = {{"listen", "127.0.0.1:" + std::to_string(port)},
                         {"textfile", dir.file("outpost.prom")},
                         {"textfile_interval_ms", 200}};
    config["telemetry"] = {{"datagram_socket", dir.file("telemetry.sock")}};
    DaemonProcess daemon(dir, config);
    REQUIRE(eventually([&] { return socket_ready(dir.file("alarms.sock")); }));

    constexpr int kAlarms = 40;
    constexpr int kDatagrams = 25;
    const std::vector<std::string> ids = raise_alarms(dir.file("alarms.sock"), kAlarms);
    for (int i = 0; i < kDatagrams; ++i) {
        REQUIRE(
            send_datagram(dir.file("telemetry.sock"), "pump-1/temp\n" + std::to_string(60 + i)));
    }
    REQUIRE(send_datagram(dir.file("telemetry.sock"), "no newline here"));
    REQUIRE(eventually([&] { return subscriber.event_counts().size() == kAlarms; }));

    std::string text;
    REQUIRE(eventually([&] {
        HttpAnswer answer = http_get(port, "/metrics");
        text = answer.body;
        return answer.status == 200 && metric_value(text, "outpost_events_sent_total") == kAlarms &&
               metric_value(text, "outpost_telemetry_datagrams_total") == kDatagrams + 1;
    }));
    std::string text_line = text;
    for (char& c : text_line) c = c == '\n' ? '|' : c;  // a TAP message must not span lines
    INFO(text_line);
    CHECK(text.find("# TYPE outpost_events_sent_total counter") != std::string::npos);
    CHECK(text.find("# HELP outpost_backlog ") != std::string::npos);
    CHECK(metric_value(text, "outpost_backlog") == 0);
    CHECK(metric_value(text, "outpost_in_flight") == 0);
    CHECK(metric_value(text, "outpost_events_recorded_total") == kAlarms);
    CHECK(metric_value(text, "outpost_ingest_alarms_recorded_total") == kAlarms);
    CHECK(metric_value(text, "outpost_ingest_errors_total") == 0);
    CHECK(metric_value(text, "outpost_broker_connected") == 1);
    CHECK(metric_value(text, "outpost_lease_epoch") == 1);
    CHECK(metric_value(text, "outpost_telemetry_dropped_total{reason=\"invalid\"}") == 1);
    CHECK(metric_value(text, "outpost_commit_to_ack_p99_seconds").has_value());
    CHECK(metric_value(text, "outpost_store_bytes") > 0);

    // The textfile carries the same figures, for node-exporter.
    REQUIRE(eventually([&] {
        return metric_value(read_file(dir.file("outpost.prom")), "outpost_events_sent_total") ==
               kAlarms;
    }));
    CHECK(http_get(port, "/other").status == 404);
    CHECK(daemon.terminate() == 0);
}
