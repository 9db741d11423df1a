// Fault points exist only in builds configured with them (meson option
// fault_points, src/common/fault_point.h): a production outpostd must not die
// or hang because OUTPOST_FAULT is set. This holds the outpostd of this build
// to the setting the build was configured with (OUTPOST_FAULT_POINTS, the same
// value outpostd was compiled with), on two counts: its binary carries the
// fault point machinery exactly when the setting is on, and OUTPOST_FAULT in
// its environment kills it exactly when the setting is on.
//
// scripts/test runs it twice: in the test build (points on: the kill must
// happen) and in a build configured with buildtype=release (points off: the
// outpostd a gateway ships must ignore OUTPOST_FAULT and record the alarm).
// No broker is needed: the daemon serves its socket while it reconnects.
#include <catch2/catch.hpp>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "daemon_harness.h"
#include "eventually.h"
#include "ingest/client.h"
#include "outpost/store.h"
#include "outpost/store_admin.h"

using nlohmann::json;
using namespace outpost::testing;
using namespace std::chrono_literals;

namespace {

constexpr bool kBuiltWithFaultPoints = OUTPOST_FAULT_POINTS != 0;

// The daemon's answer to one raise_alarm, or a null json when the socket
// cannot be reached or gives no answer.
json raise_alarm(const std::string& socket) {
    auto client = outpost::ingest::Client::connect(socket);
    if (!client) return nullptr;
    json request = {{"op", "raise_alarm"},
                    {"alarm", {{"deviceId", "pump-1"}, {"alarmType", "OVER_TEMPERATURE"}}}};
    auto answer = (*client)->call(request, 10s);
    return answer ? *answer : json(nullptr);
}

bool contains(const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
}

}  // namespace

TEST_CASE("outpostd carries the fault point machinery exactly when its build has fault points",
          "[daemon]") {
    std::ifstream file(outpostd_binary(), std::ios::binary);
    REQUIRE(file.good());
    const std::string binary((std::istreambuf_iterator<char>(file)),
                             std::istreambuf_iterator<char>());
    REQUIRE(binary.size() > 100000);
    INFO("fault points in this build: " << kBuiltWithFaultPoints);
    // The environment variable's name (read only by fault_point.cpp) and a
    // point's name (from the table only the armed path reads).
    CHECK(contains(binary, "OUTPOST_FAULT") == kBuiltWithFaultPoints);
    CHECK(contains(binary, "store.after_commit") == kBuiltWithFaultPoints);
}

TEST_CASE("OUTPOST_FAULT kills outpostd at a store commit only when its build has fault points",
          "[daemon]") {
    TempDir dir;
    const std::string socket = dir.file("alarms.sock");
    DaemonProcess daemon(dir, offline_daemon_config(dir, "gw-fault-build"),
                         {"OUTPOST_FAULT=store.after_commit"});
    INFO("fault points in this build: " << kBuiltWithFaultPoints);

    if (kBuiltWithFaultPoints) {
        // The first durable commit (the publisher's lease, or this alarm)
        // is the last thing it does: SIGKILL, no answer.
        REQUIRE(eventually(
            [&] {
                if (daemon.ended()) return true;
                raise_alarm(socket);
                return daemon.ended().has_value();
            },
            60s));
        INFO(daemon.log_line());
        CHECK(daemon.ended() == 128 + SIGKILL);
        return;
    }

    // Compiled out: OUTPOST_FAULT is just a variable nobody reads.
    json answer;
    REQUIRE(eventually(
        [&] {
            answer = raise_alarm(socket);
            return answer.is_object() || daemon.ended().has_value();
        },
        60s));
    INFO(daemon.log_line() << " | answer: " << answer.dump());
    REQUIRE(answer.value("ok", false));
    const std::string event_id = answer.value("eventId", "");
    // More commits, and the daemon still serves.
    CHECK(raise_alarm(socket).value("ok", false));
    CHECK_FALSE(daemon.ended().has_value());
    CHECK(daemon.terminate() == 0);

    // The acknowledged alarm is in the database.
    outpost::StoreOptions options;  // gateway_id read from the database
    auto store = outpost::Store::open(dir.file("outbox.db"), options);
    REQUIRE(store.is_ok());
    CHECK(outpost::StoreAdmin(**store).find_event(event_id).is_ok());
}
