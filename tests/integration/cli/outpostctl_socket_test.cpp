// outpostctl against a running ingestion server: the real binary, a real
// socket and a real store file, judged by exit codes, output and the rows
// the store then holds (read back with outpostctl --db).
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "../ingest/ingest_harness.h"
#include "cli_runner.h"
#include "status_fields.h"
#include "store_fixture.h"
#include "tap_text.h"
#include "temp_dir.h"

using outpost::testing::CliRun;
using outpost::testing::IngestHarness;
using outpost::testing::run_outpostctl;

namespace {

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("raise-alarm --socket prints an eventId whose row the daemon's store holds", "[cli]") {
    IngestHarness daemon;
    CliRun raised =
        run_outpostctl({"raise-alarm", "--socket", daemon.socket_path, "--device", "pump-1",
                        "--type", "OVER_TEMPERATURE", "--severity", "critical", "--value", "97.5",
                        "--unit", "degC", "--text", "bearing hot"},
                       daemon.dir.path());
    INFO(outpost::testing::one_line(raised.err));
    REQUIRE(raised.exit_code == 0);
    std::string event_id = raised.out.substr(0, raised.out.find('\n'));
    REQUIRE(event_id.size() == 36);

    CliRun shown =
        run_outpostctl({"--db", daemon.db_path, "--json", "show", event_id}, daemon.dir.path());
    INFO(outpost::testing::one_line(shown.err));
    REQUIRE(shown.exit_code == 0);
    auto row = nlohmann::json::parse(shown.out);
    CHECK(row["state"] == "PENDING");
    CHECK(row["device_id"] == "pump-1");
    auto envelope = row["envelope"];
    CHECK(envelope["gatewayId"] == "gw-test");
    CHECK(envelope["payload"]["alarmType"] == "OVER_TEMPERATURE");
    CHECK(envelope["payload"]["severity"] == "critical");
    CHECK(envelope["payload"]["value"] == 97.5);
    CHECK(envelope["payload"]["unit"] == "degC");
    CHECK(envelope["payload"]["text"] == "bearing hot");
}

TEST_CASE("raise-alarm --socket --json with the same --key reports the duplicate", "[cli]") {
    IngestHarness daemon;
    std::vector<std::string> args = {"--json",   "raise-alarm",  "--socket", daemon.socket_path,
                                     "--device", "door-3",       "--type",   "DOOR_OPEN",
                                     "--key",    "door-3-boot-9"};
    CliRun first = run_outpostctl(args, daemon.dir.path());
    CliRun second = run_outpostctl(args, daemon.dir.path());
    INFO(outpost::testing::one_line(first.err + second.err));
    REQUIRE(first.exit_code == 0);
    REQUIRE(second.exit_code == 0);
    auto first_answer = nlohmann::json::parse(first.out);
    auto second_answer = nlohmann::json::parse(second.out);
    CHECK(first_answer["duplicate"] == false);
    CHECK(first_answer["seq"] == 1);
    CHECK(second_answer["duplicate"] == true);
    CHECK(second_answer["event_id"] == first_answer["event_id"]);
}

TEST_CASE("status --socket prints whatever the daemon reports, with the store part on --db",
          "[cli]") {
    IngestHarness daemon({}, [] {
        return nlohmann::json{{"gatewayId", "gw-test"},
                              {"publisher", {{"connected", true}, {"inFlight", 2}}},
                              {"telemetry", {{"dropped", 0}}}};
    });
    SECTION("human: key: value lines, nested objects indented") {
        CliRun run = run_outpostctl({"status", "--socket", daemon.socket_path}, daemon.dir.path());
        INFO(outpost::testing::one_line(run.err));
        REQUIRE(run.exit_code == 0);
        CHECK(contains(run.out, "gatewayId: gw-test\n"));
        CHECK(contains(run.out, "publisher:\n  connected: true\n  inFlight: 2\n"));
        CHECK(contains(run.out, "telemetry:\n  dropped: 0\n"));
    }
    SECTION("--json: the daemon's document as is") {
        CliRun run =
            run_outpostctl({"--json", "--socket", daemon.socket_path, "status"}, daemon.dir.path());
        REQUIRE(run.exit_code == 0);
        CHECK(nlohmann::json::parse(run.out)["publisher"]["inFlight"] == 2);
    }
    SECTION("with --db the store part follows") {
        REQUIRE_OK(daemon.store->record_alarm(outpost::testing::sample_alarm()));
        CliRun human = run_outpostctl(
            {"--db", daemon.db_path, "status", "--socket", daemon.socket_path}, daemon.dir.path());
        INFO(outpost::testing::one_line(human.err));
        REQUIRE(human.exit_code == 0);
        CHECK(contains(human.out, "outpostd:\n  gatewayId: gw-test\n"));
        CHECK(contains(human.out, "pending:        1\n"));
        CliRun json = run_outpostctl(
            {"--json", "--db", daemon.db_path, "status", "--socket", daemon.socket_path},
            daemon.dir.path());
        REQUIRE(json.exit_code == 0);
        auto document = nlohmann::json::parse(json.out);
        CHECK(document["daemon"]["publisher"]["connected"] == true);
        CHECK(document["database"]["store"]["pending"] == 1);
        CHECK(document["database"]["gateway_id"] == "gw-test");
    }
}

TEST_CASE("the store figures read through the socket and from the file have the same fields",
          "[cli]") {
    IngestHarness daemon;  // no daemon status: the socket server answers with its own
    REQUIRE_OK(daemon.store->record_alarm(outpost::testing::sample_alarm()));
    CliRun run =
        run_outpostctl({"--json", "--db", daemon.db_path, "status", "--socket", daemon.socket_path},
                       daemon.dir.path());
    INFO(outpost::testing::one_line(run.err));
    REQUIRE(run.exit_code == 0);
    auto document = nlohmann::json::parse(run.out);
    const nlohmann::json& from_socket = document["daemon"]["store"];
    const nlohmann::json& from_file = document["database"]["store"];
    CHECK(outpost::testing::keys_of(from_socket) == outpost::testing::store_status_fields());
    CHECK(outpost::testing::keys_of(from_file) == outpost::testing::store_status_fields());
    CHECK(from_socket["pending"] == 1);
    CHECK(from_file["pending"] == 1);
    CHECK(from_socket["quota_bytes"] == from_file["quota_bytes"]);
}

TEST_CASE("socket errors are told apart and exit 1", "[cli]") {
    outpost::testing::TempDir dir;
    SECTION("no socket file") {
        CliRun run = run_outpostctl({"status", "--socket", dir.file("none.sock")}, dir.path());
        CHECK(run.exit_code == 1);
        CHECK(contains(run.err, "no socket at " + dir.file("none.sock")));
        CHECK(run.out.empty());
    }
    SECTION("a stale socket file nobody listens on") {
        std::string path = dir.file("stale.sock");
        outpost::testing::leave_stale_socket(path);
        CliRun run = run_outpostctl(
            {"raise-alarm", "--socket", path, "--device", "d", "--type", "T"}, dir.path());
        CHECK(run.exit_code == 1);
        CHECK(contains(run.err, "nobody listens on " + path));
        CHECK(run.out.empty());
    }
}

TEST_CASE("a user without write permission on the socket is told so, exit 1", "[cli]") {
    // Root passes every permission check, so as root run outpostctl as
    // nobody; otherwise a socket of mode 0 refuses even its owner.
    const bool as_root = ::geteuid() == 0;
    outpost::ingest::ServerOptions options;
    options.socket_mode = as_root ? 0660 : 0;
    IngestHarness daemon(options);
    std::vector<std::string> launcher;
    if (as_root) {
        REQUIRE(::chmod(daemon.dir.path().c_str(), 0755) == 0);  // let nobody reach the socket
        launcher = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"};
    }
    CliRun run = outpost::testing::run_outpostctl_via(
        launcher, {"raise-alarm", "--socket", daemon.socket_path, "--device", "d", "--type", "T"},
        daemon.dir.path());
    INFO(outpost::testing::one_line(run.err));
    CHECK(run.exit_code == 1);
    CHECK(contains(run.err, "permission denied on " + daemon.socket_path));
    CHECK(run.out.empty());
    CHECK(daemon.server->stats().alarms_recorded == 0);
}

TEST_CASE("an alarm the daemon refuses prints its error code and no eventId", "[cli]") {
    IngestHarness daemon;
    CliRun run = run_outpostctl(
        {"raise-alarm", "--socket", daemon.socket_path, "--device", "pump/1", "--type", "T"},
        daemon.dir.path());
    CHECK(run.exit_code == 1);
    CHECK(contains(run.err, "outpostd refused recording the alarm: invalid_argument"));
    CHECK(run.out.empty());
    CHECK(daemon.server->stats().alarms_recorded == 0);
}

TEST_CASE("--socket with the wrong companions is a usage error", "[cli]") {
    outpost::testing::TempDir dir;
    std::string socket = dir.file("s.sock");
    SECTION("--db and --socket both on raise-alarm") {
        CliRun run = run_outpostctl({"--db", dir.file("x.db"), "raise-alarm", "--socket", socket,
                                     "--device", "d", "--type", "T"},
                                    dir.path());
        CHECK(run.exit_code == 2);
        CHECK(contains(run.err, "either --db PATH"));
    }
    SECTION("--gateway with --socket") {
        CliRun run = run_outpostctl(
            {"raise-alarm", "--socket", socket, "--device", "d", "--type", "T", "--gateway", "gw"},
            dir.path());
        CHECK(run.exit_code == 2);
        CHECK(contains(run.err, "--gateway goes with --db only"));
    }
    SECTION("--socket on a database-only command") {
        CliRun run = run_outpostctl({"--socket", socket, "list"}, dir.path());
        CHECK(run.exit_code == 2);
        CHECK(contains(run.err, "--socket goes with status and raise-alarm"));
    }
}
