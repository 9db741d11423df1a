// The publisher SIGKILLed at each of its named fault points (OUTPOST_FAULT,
// src/common/fault_point.h) in its own process, then restarted on the same
// database: every recorded alarm arrives at an independent subscriber
// (mosquitto_sub), every row ends SENT, nothing arrives that the database
// does not hold, and a row marked SENT before the kill had arrived already.
#include <signal.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>

#include "common/fault_point.h"
#include "publish_harness.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

constexpr int kAlarms = 600;
constexpr unsigned long kKillAtHit = 100;
// publish.loop is hit once per round of the publisher's loop, and a round
// starts at most max_in_flight (20 in publisher_child) new publishes, so by
// round kKillAtHit at most 2,000 rows can be SENT: a backlog larger than
// that is still pending at the kill however fast the machine drains
// (600 drained before round 100 in one CI run and not at all in another).
constexpr int kLoopAlarms = static_cast<int>(kKillAtHit) * 20 + 600;

std::set<std::string> event_ids_in_state(const std::string& db, int state) {
    RawSqlite raw(db, SQLITE_OPEN_READONLY);
    auto ids = raw.column("SELECT event_id FROM outbox WHERE state = " + std::to_string(state));
    return std::set<std::string>(ids.begin(), ids.end());
}

// publisher_child with OUTPOST_FAULT=`fault` in its environment only; waits
// for it to end and returns its wait status (-1 if it still ran after 60 s).
int run_armed_publisher(const std::string& db, const std::string& uri, const std::string& fault,
                        const TempDir& dir) {
    ::setenv("OUTPOST_FAULT", fault.c_str(), 1);
    const pid_t pid =
        spawn_logged({OUTPOST_PUBLISHER_CHILD, db, uri, "pub-armed", dir.file("armed.status")},
                     dir.file("armed.log"));
    ::unsetenv("OUTPOST_FAULT");
    int status = -1;
    if (!eventually([&] { return ::waitpid(pid, &status, WNOHANG) == pid; },
                    std::chrono::seconds(60))) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        return -1;
    }
    return status;
}

}  // namespace

TEST_CASE(
    "a publisher killed at each publisher fault point and restarted delivers every alarm and "
    "no phantom") {
    // This process reads OUTPOST_FAULT once; freeze it as unset first.
    REQUIRE(armed_fault_point() == nullptr);
    for (const FaultPointInfo& point : kFaultPoints) {
        if (std::string(point.workload) != "publish") continue;
        const std::string name = point.name;
        SECTION(name) {
            Mosquitto broker;
            Subscriber subscriber(broker, "observer");
            TempDir dir;
            const std::string db = dir.file("outbox.db");
            auto store = open_store(db, test_options());
            const int alarms = name == "publish.loop" ? kLoopAlarms : kAlarms;
            const std::vector<RecordedEvent> recorded = record_alarms(*store, alarms, 6);

            const std::string fault = name + ":" + std::to_string(kKillAtHit);
            const int status = run_armed_publisher(db, broker.uri(), fault, dir);
            INFO("OUTPOST_FAULT=" << fault << " (" << point.where << "), publisher log: "
                                  << one_line(read_file(dir.file("armed.log"))));
            REQUIRE(status != -1);
            REQUIRE(WIFSIGNALED(status));
            REQUIRE(WTERMSIG(status) == SIGKILL);

            // SENT means PUBACKed: each of those rows reached the broker and
            // so the subscriber.
            const std::set<std::string> sent_at_kill = event_ids_in_state(db, 1);
            const std::set<std::string> pending_at_kill = event_ids_in_state(db, 0);
            CHECK(pending_at_kill.size() > 0);  // the kill was mid-stream
            CHECK(eventually([&] {
                auto seen = subscriber.event_counts();
                for (const std::string& id : sent_at_kill) {
                    if (seen.count(id) == 0) return false;
                }
                return true;
            }));
            if (name == "publish.after_puback") {
                // PUBACKed but not yet marked: a row still PENDING arrived.
                CHECK(eventually([&] {
                    auto seen = subscriber.event_counts();
                    for (const std::string& id : pending_at_kill) {
                        if (seen.count(id) > 0) return true;
                    }
                    return false;
                }));
            }

            ChildPublisher restarted(db, broker.uri(), "pub-restarted", dir.path());
            REQUIRE(eventually([&] { return outbox_view(db).sent == alarms; },
                               std::chrono::seconds(60)));
            REQUIRE(eventually(
                [&] { return subscriber.event_counts().size() >= static_cast<size_t>(alarms); }));
            const std::map<std::string, int> seen = subscriber.event_counts();
            std::set<std::string> in_database;
            for (const RecordedEvent& event : recorded) in_database.insert(event.event_id);
            size_t lost = 0;
            size_t repeats = 0;
            for (const std::string& id : in_database) lost += seen.count(id) == 0 ? 1 : 0;
            size_t phantom = 0;
            size_t arrived_twice = 0;
            for (const auto& [id, count] : seen) {
                phantom += in_database.count(id) == 0 ? 1 : 0;
                repeats += static_cast<size_t>(count - 1);
                arrived_twice += count > 1 ? 1 : 0;
            }
            CHECK(lost == 0);
            CHECK(phantom == 0);
            CHECK(outbox_view(db).dead == 0);
            std::printf(
                "# %s: %zu SENT at the kill, %zu alarms arrived twice or more (%zu "
                "repeats)\n",
                fault.c_str(), sent_at_kill.size(), arrived_twice, repeats);
        }
    }
}
