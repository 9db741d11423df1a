// The plain C example a firmware team starts from
// (firmware_glue/examples/raise_alarm.c) against a real server: its eventId
// names a stored row, a repeated key gives the same eventId, a refusal is
// reported with outpostd's error code.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "../cli/cli_runner.h"
#include "ingest_harness.h"
#include "raw_sqlite.h"

using outpost::testing::CliRun;
using outpost::testing::IngestHarness;
using outpost::testing::run_program;

namespace {

CliRun run_example(const IngestHarness& harness, std::vector<std::string> args) {
    const char* binary = std::getenv("RAISE_ALARM_C");
    if (binary == nullptr || *binary == '\0') throw std::runtime_error("RAISE_ALARM_C is not set");
    args.insert(args.begin(), {binary, "-s", harness.socket_path});
    return run_program(args, harness.dir.path());
}

}  // namespace

TEST_CASE("the C example records an alarm and prints the eventId of the stored row", "[ingest]") {
    IngestHarness harness;
    CliRun run = run_example(harness, {"-k", "boot-1-door", "door-1", "DOOR_OPEN", "warning",
                                       "cabinet \"B\" open\tsince boot"});
    INFO(run.err);
    REQUIRE(run.exit_code == 0);
    std::string event_id = run.out.substr(0, run.out.find('\n'));
    outpost::testing::RawSqlite raw(harness.db_path, SQLITE_OPEN_READONLY);
    std::string where = " FROM alarm_record WHERE event_id = '" + event_id + "'";
    CHECK(raw.text("SELECT device_id" + where) == "door-1");
    CHECK(raw.text("SELECT severity" + where) == "warning");
    CHECK(raw.text("SELECT text" + where) == "cabinet \"B\" open\tsince boot");

    CliRun again = run_example(harness, {"-k", "boot-1-door", "door-1", "DOOR_OPEN", "warning"});
    REQUIRE(again.exit_code == 0);
    CHECK(again.out == run.out);
    CHECK(raw.integer("SELECT count(*) FROM outbox") == 1);
}

TEST_CASE("the C example reports outpostd's refusal and exits 1", "[ingest]") {
    IngestHarness harness;
    CliRun run = run_example(harness, {"pump-1", "OVER_TEMPERATURE", "apocalyptic"});
    CHECK(run.exit_code == 1);
    CHECK(run.err.find("invalid_request") != std::string::npos);
    CHECK(run.out.empty());
}
