// outpostd as systemd runs it, against a real mosquitto, a real database
// file and an independent subscriber (mosquitto_sub): alarms through its
// socket reach the broker, SIGTERM drains without losing a row, the notify
// protocol and the watchdog behave, and the metrics tell what happened.
// Waits are bounded and wait for outcomes; nothing asserts on timing.
#include <sys/stat.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
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

// Raises `count` alarms through the daemon's socket, for devices
// <device_prefix>0, 1 and 2 in turn; returns the eventIds.
std::vector<std::string> raise_alarms(const std::string& socket, int count,
                                      const std::string& device_prefix = "pump-") {
    auto client = outpost::ingest::Client::connect(socket);
    REQUIRE(client.is_ok());
    std::vector<std::string> ids;
    for (int i = 0; i < count; ++i) {
        json request = {{"op", "raise_alarm"},
                        {"alarm",
                         {{"deviceId", device_prefix + std::to_string(i % 3)},
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

// Collects what `notify` receives into `messages` until outpostd's main loop
// sent `count` periodic STATUS= (READY's is not one); false if it did not.
// They are the daemon's own clock: one per status_interval_ms.
bool collect_until_statuses(NotifyListener& notify, std::vector<std::string>& messages,
                            long count) {
    return eventually([&] {
        for (auto& message : notify.collect(200ms)) messages.push_back(message);
        return std::count_if(messages.begin(), messages.end(), [](const std::string& message) {
                   return message.rfind("STATUS=", 0) == 0;
               }) >= count;
    });
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
    "by default an acknowledged alarm stays until a receipt and is published again without one; "
    "outpostd says at start when receipts are off",
    "[daemon]") {
    Mosquitto broker;
    Subscriber subscriber(broker, "independent-sub");
    {
        TempDir dir;
        nlohmann::json config = daemon_config(dir, broker);
        config["publisher"].erase("receipts");  // the shipped default
        config["publisher"]["receipt_timeout_ms"] = 200;
        config["publisher"]["receipt_timeout_max_ms"] = 400;
        config["publisher"]["purge_interval_ms"] = 50;
        config["database"]["sent_retention_s"] = 0;
        DaemonProcess daemon(dir, config);
        REQUIRE(eventually([&] { return socket_ready(dir.file("alarms.sock")); }));
        const std::vector<std::string> ids = raise_alarms(dir.file("alarms.sock"), 1);
        // No bridge answers: the alarm goes out again and again, and its
        // SENT row outlives a retention of 0 and many purge rounds.
        REQUIRE(eventually([&] { return subscriber.event_counts()[ids[0]] >= 3; }));
        CHECK(outbox_view(dir.file("outbox.db")).sent == 1);
        CHECK_FALSE(daemon.logged("publisher.receipts is off"));
        CHECK(daemon.terminate() == 0);
    }
    {
        TempDir dir;
        nlohmann::json config = daemon_config(dir, broker);
        config["publisher"]["receipts"] = false;
        config["publisher"]["purge_interval_ms"] = 50;
        config["database"]["sent_retention_s"] = 0;
        DaemonProcess daemon(dir, config);
        REQUIRE(eventually([&] { return socket_ready(dir.file("alarms.sock")); }));
        const std::vector<std::string> ids = raise_alarms(dir.file("alarms.sock"), 3);
        // Off: the PUBACK is final and retention purges the rows (all but
        // the newest, which the store keeps so that ids are never reused).
        REQUIRE(eventually([&] {
            const OutboxView view = outbox_view(dir.file("outbox.db"));
            return view.pending == 0 && view.sent == 1;
        }));
        for (const std::string& id : ids) CHECK(subscriber.event_counts()[id] == 1);
        CHECK(daemon.logged("publisher.receipts is off"));
        CHECK(daemon.terminate() == 0);
    }
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
    json config = daemon_config(dir, broker);
    config["status_interval_ms"] = 100;
    DaemonProcess daemon(
        dir, config,
        {"NOTIFY_SOCKET=" + notify.path(), "WATCHDOG_USEC=1000000", "WATCHDOG_PID=1"});
    // A periodic STATUS= (not READY's) comes from the main loop after its
    // first watchdog look, which pings at once when the watchdog is on: the
    // datagrams arrive in order, so none before it means the pings are off.
    std::vector<std::string> messages;
    REQUIRE(collect_until_statuses(notify, messages, 1));
    CHECK(count_assignments(messages, "READY=1") == 1);
    CHECK(count_assignments(messages, "WATCHDOG=1") == 0);
    CHECK_FALSE(daemon.logged("systemd watchdog: checking"));
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
    stuck_config["status_interval_ms"] = 100;
    DaemonProcess stuck(stuck_dir, stuck_config,
                        {"NOTIFY_SOCKET=" + stuck_notify.path(), "WATCHDOG_USEC=1000000",
                         "OUTPOST_FAULT=publish.loop:20:stall"});
    // The stuck daemon notices that its publisher stopped going round.
    REQUIRE(eventually([&] { return stuck.logged("withholding WATCHDOG=1"); }));
    INFO(stuck.log_line());
    // From here on, its own clock: the main loop looks at the publisher
    // every 500 ms (WATCHDOG_USEC/2) and sends STATUS= every 100 ms, so 12
    // periodic STATUS= span two looks or more, each a ping were it pinging.
    stuck_notify.collect(0ms);
    std::vector<std::string> from_stuck;
    REQUIRE(collect_until_statuses(stuck_notify, from_stuck, 12));
    CHECK(count_assignments(from_stuck, "WATCHDOG=1") == 0);
    // The healthy one, beside it on the same broker, keeps pinging.
    healthy_notify.collect(0ms);
    std::vector<std::string> from_healthy;
    REQUIRE(eventually([&] {
        for (auto& message : healthy_notify.collect(200ms)) from_healthy.push_back(message);
        return count_assignments(from_healthy, "WATCHDOG=1") >= 2;
    }));
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

namespace {

// The log lines that contain `text`.
std::vector<std::string> lines_with(const std::string& log, const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(log);
    for (std::string line; std::getline(in, line);) {
        if (line.find(text) != std::string::npos) lines.push_back(line);
    }
    return lines;
}

// The body of /metrics, empty while the endpoint does not answer yet.
std::string scrape(int port) {
    try {
        HttpAnswer answer = http_get(port, "/metrics");
        return answer.status == 200 ? answer.body : std::string();
    } catch (const std::runtime_error&) {
        return std::string();  // not listening yet
    }
}

}  // namespace

TEST_CASE("a DEAD event is logged once at error level with its reason and moves the dead metrics",
          "[daemon]") {
    Mosquitto broker(gateway_acl_config("gw-daemon", "outpost/gw-daemon/alarm/forbidden-0"));
    Subscriber subscriber(broker, "observer", false, "observer", "observer-secret");
    TempDir dir;
    const int port = free_loopback_port();
    json config = daemon_config(dir, broker);
    config["broker"]["username"] = "gw-daemon";
    config["broker"]["password"] = "gateway-secret";
    config["publisher"]["max_attempts"] = 2;
    config["publisher"]["retry_initial_ms"] = 20;
    config["publisher"]["retry_max_ms"] = 50;
    config["metrics"] = {{"listen", "127.0.0.1:" + std::to_string(port)}};
    DaemonProcess daemon(dir, config);
    REQUIRE(eventually([&] { return socket_ready(dir.file("alarms.sock")); }));
    std::string text;
    REQUIRE(eventually([&] {
        text = scrape(port);
        return metric_value(text, "outpost_broker_connected") == 1;
    }));
    CHECK(metric_value(text, "outpost_events_dead_total") == 0);
    CHECK(metric_value(text, "outpost_dead") == 0);

    const std::string dead_id = raise_alarms(dir.file("alarms.sock"), 1, "forbidden-").front();
    REQUIRE(eventually([&] {
        text = scrape(port);
        return metric_value(text, "outpost_events_dead_total") == 1;
    }));
    // The same scrape: the counter never runs ahead of the store's DEAD rows.
    CHECK(metric_value(text, "outpost_dead") == 1);
    // Alarms after it flow, and the DEAD one stays DEAD: no second report.
    const std::vector<std::string> later = raise_alarms(dir.file("alarms.sock"), 6);
    REQUIRE(eventually([&] { return subscriber.event_counts().size() == later.size(); }));
    REQUIRE(eventually([&] {
        text = scrape(port);
        return metric_value(text, "outpost_events_sent_total") == 6;
    }));
    CHECK(metric_value(text, "outpost_events_dead_total") == 1);
    CHECK(subscriber.event_counts().count(dead_id) == 0);

    INFO(daemon.log_line());
    const std::vector<std::string> dead_lines = lines_with(daemon.log(), "is DEAD");
    REQUIRE(dead_lines.size() == 1);
    const std::string& line = dead_lines.front();
    CHECK(line.rfind("outpostd error: ", 0) == 0);
    CHECK(line.find(dead_id) != std::string::npos);
    CHECK(line.find("forbidden-0") != std::string::npos);
    CHECK(line.find("0x87") != std::string::npos);  // the broker's reason: Not authorized
    CHECK(line.find("after 2 attempt") != std::string::npos);
    CHECK(lines_with(daemon.log(), dead_id).size() == 1);
    CHECK(daemon.terminate() == 0);
}

TEST_CASE("every metric the shipped alert rules use is one a running outpostd exports",
          "[daemon]") {
    const char* rules_path = std::getenv("OUTPOST_ALERT_RULES");
    REQUIRE(rules_path != nullptr);
    const std::string rules = read_file(rules_path);
    std::set<std::string> used;
    const std::regex metric_name("outpost_[a-z0-9_]+");
    std::istringstream in(rules);
    for (std::string line; std::getline(in, line);) {
        if (line.find("expr:") == std::string::npos) continue;
        for (std::sregex_iterator it(line.begin(), line.end(), metric_name), end; it != end; ++it) {
            used.insert(it->str());
        }
    }
    REQUIRE(used.size() >= 8);  // the rules were read, not an empty file

    Mosquitto broker;
    TempDir dir;
    const int port = free_loopback_port();
    json config = daemon_config(dir, broker);
    config["metrics"] = {{"listen", "127.0.0.1:" + std::to_string(port)}};
    config["telemetry"] = {{"datagram_socket", dir.file("telemetry.sock")}};
    DaemonProcess daemon(dir, config);
    std::string text;
    REQUIRE(eventually([&] {
        text = scrape(port);
        return metric_value(text, "outpost_lease_held") == 1;
    }));
    std::set<std::string> exported;
    std::istringstream scrape(text);
    for (std::string line; std::getline(scrape, line);) {
        const std::string type = "# TYPE ";
        if (line.rfind(type, 0) != 0) continue;
        exported.insert(line.substr(type.size(), line.find(' ', type.size()) - type.size()));
    }
    for (const std::string& name : used) {
        INFO(name);
        CHECK(exported.count(name) == 1);
    }
    CHECK(daemon.terminate() == 0);
}
