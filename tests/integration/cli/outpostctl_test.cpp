// outpostctl as an operator uses it: the real binary against a real store
// file, judged by its exit code, its output and what the store then holds.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_runner.h"
#include "raw_sqlite.h"
#include "status_fields.h"
#include "store/outbox.h"
#include "store/store_internal.h"
#include "store_fixture.h"
#include "tap_text.h"
#include "temp_dir.h"

using outpost::testing::CliRun;
using outpost::testing::run_outpostctl;

namespace {

std::string first_line(const std::string& text) {
    return text.substr(0, text.find('\n'));
}

// Records one alarm and drives it to DEAD the way a publisher would: a
// failure under a held lease epoch with max_attempts 1. Returns its eventId.
std::string make_dead_event(const std::string& db) {
    auto store = outpost::testing::open_store(db, outpost::testing::test_options());
    auto recorded = store->record_alarm(outpost::testing::sample_alarm());
    REQUIRE_OK(recorded);
    auto epoch = outpost::store::acquire_epoch(outpost::store::core_of(*store), "test-publisher");
    REQUIRE_OK(epoch);
    auto reader = outpost::store::core_of(*store).open_reader();
    REQUIRE_OK(reader);
    auto row = outpost::store::find_event(*reader, recorded->event_id);
    REQUIRE_OK(row);
    auto dead = outpost::store::record_failure(outpost::store::core_of(*store), row->id,
                                               "broker refused", *epoch, 1);
    REQUIRE_OK(dead);
    REQUIRE(*dead);
    return recorded->event_id;
}

}  // namespace

TEST_CASE("raise-alarm prints an eventId that status counts as pending and show finds", "[cli]") {
    outpost::testing::TempDir dir;
    std::string db = dir.file("store.db");

    CliRun raised = run_outpostctl(
        {"--db", db, "raise-alarm", "--device", "pump-1", "--type", "OVER_TEMPERATURE",
         "--severity", "critical", "--value", "97.5", "--unit", "degC", "--gateway", "gw-cli"},
        dir.path());
    INFO(outpost::testing::one_line(raised.err));
    REQUIRE(raised.exit_code == 0);
    std::string event_id = first_line(raised.out);
    REQUIRE(event_id.size() == 36);

    CliRun status = run_outpostctl({"--db", db, "--json", "status"}, dir.path());
    REQUIRE(status.exit_code == 0);
    auto figures = nlohmann::json::parse(status.out);
    CHECK(figures["gateway_id"] == "gw-cli");
    CHECK(outpost::testing::keys_of(figures["store"]) == outpost::testing::store_status_fields());
    CHECK(figures["store"]["pending"] == 1);
    CHECK(figures["store"]["dead"] == 0);
    CHECK(figures["store"]["database_bytes"].get<uint64_t>() > 0);
    CHECK(figures["lease"]["epoch"] == 0);

    CliRun human = run_outpostctl({"--db", db, "status"}, dir.path());
    REQUIRE(human.exit_code == 0);
    CHECK(human.out.find("pending:        1") != std::string::npos);

    CliRun shown = run_outpostctl({"--db", db, "show", event_id, "--json"}, dir.path());
    REQUIRE(shown.exit_code == 0);
    auto row = nlohmann::json::parse(shown.out);
    CHECK(row["event_id"] == event_id);
    CHECK(row["state"] == "PENDING");
    CHECK(row["envelope"]["eventId"] == event_id);
    CHECK(row["envelope"]["payload"]["severity"] == "critical");
}

TEST_CASE("list --json gives the recorded ids in commit order", "[cli]") {
    outpost::testing::TempDir dir;
    std::string db = dir.file("store.db");
    std::vector<std::string> ids;
    {
        auto store = outpost::testing::open_store(db, outpost::testing::test_options());
        for (int i = 0; i < 3; ++i) {
            auto recorded =
                store->record_alarm(outpost::testing::sample_alarm("pump-" + std::to_string(i)));
            REQUIRE_OK(recorded);
            ids.push_back(recorded->event_id);
        }
    }
    CliRun listed = run_outpostctl({"--db", db, "list", "--json"}, dir.path());
    INFO(outpost::testing::one_line(listed.err));
    REQUIRE(listed.exit_code == 0);
    auto events = nlohmann::json::parse(listed.out)["events"];
    REQUIRE(events.size() == 3);
    for (size_t i = 0; i < ids.size(); ++i) CHECK(events[i]["event_id"] == ids[i]);

    CliRun paged = run_outpostctl({"--db", db, "list", "--json", "--after",
                                   std::to_string(events[0]["id"].get<int64_t>()), "--limit", "1"},
                                  dir.path());
    REQUIRE(paged.exit_code == 0);
    auto page = nlohmann::json::parse(paged.out)["events"];
    REQUIRE(page.size() == 1);
    CHECK(page[0]["event_id"] == ids[1]);
}

TEST_CASE("replay of a DEAD event makes it pending again with the same eventId", "[cli]") {
    outpost::testing::TempDir dir;
    std::string db = dir.file("store.db");
    std::string event_id = make_dead_event(db);

    CliRun dead = run_outpostctl({"--db", db, "list", "--state", "dead", "--json"}, dir.path());
    REQUIRE(dead.exit_code == 0);
    REQUIRE(nlohmann::json::parse(dead.out)["events"].size() == 1);
    CliRun dead_row = run_outpostctl({"--db", db, "--json", "show", event_id}, dir.path());
    REQUIRE(dead_row.exit_code == 0);
    const int64_t failed_at = nlohmann::json::parse(dead_row.out)["failed_at_ms"];
    CHECK(failed_at > 0);  // when it last failed

    CliRun replayed =
        run_outpostctl({"--db", db, "replay", event_id, "--reason", "broker fixed"}, dir.path());
    INFO(outpost::testing::one_line(replayed.err));
    REQUIRE(replayed.exit_code == 0);

    CliRun shown = run_outpostctl({"--db", db, "--json", "show", event_id}, dir.path());
    REQUIRE(shown.exit_code == 0);
    auto row = nlohmann::json::parse(shown.out);
    CHECK(row["state"] == "PENDING");
    CHECK(row["event_id"] == event_id);
    CHECK(row["envelope"]["eventId"] == event_id);
    CHECK(row["replay_count"] == 1);
    CHECK(row["replay_reason"] == "broker fixed");
    CHECK(row["attempts"] == 0);
    CHECK(row["replayed_at_ms"].get<int64_t>() > 0);
    // Who asked: the account running outpostctl, unless --actor names someone.
    const std::string actor = row["replay_actor"];
    CHECK(actor.rfind("outpostctl by ", 0) == 0);
    CHECK(actor.find("(uid " + std::to_string(getuid()) + ")") != std::string::npos);

    // The failure the replay reset is kept.
    REQUIRE(row["earlier_failures"].size() == 1);
    CHECK(row["earlier_failures"][0]["attempts"] == 1);
    CHECK(row["earlier_failures"][0]["error"] == "broker refused");
    CHECK(row["earlier_failures"][0]["failed_at_ms"] == failed_at);
    CHECK(row["earlier_failures"][0]["reason"] == "broker fixed");
    CHECK(row["failed_at_ms"] == 0);

    CliRun human = run_outpostctl({"--db", db, "show", event_id}, dir.path());
    REQUIRE(human.exit_code == 0);
    CHECK(human.out.find("replay_actor:  " + actor + "\n") != std::string::npos);
    CHECK(human.out.find("earlier:       1 attempt(s), last at " + std::to_string(failed_at) +
                         " ms: broker refused; replayed at ") != std::string::npos);
}

TEST_CASE("replay --actor records who asked, and an empty actor is a usage error", "[cli]") {
    outpost::testing::TempDir dir;
    std::string db = dir.file("store.db");
    std::string event_id = make_dead_event(db);

    CliRun empty = run_outpostctl({"--db", db, "replay", event_id, "--reason", "x", "--actor", ""},
                                  dir.path());
    CHECK(empty.exit_code == 2);
    CHECK(empty.err.find("--actor") != std::string::npos);

    CliRun replayed = run_outpostctl({"--db", db, "replay", "--all-dead", "--reason", "ACL fixed",
                                      "--actor", "maintenance screen"},
                                     dir.path());
    INFO(outpost::testing::one_line(replayed.err));
    REQUIRE(replayed.exit_code == 0);
    CliRun shown = run_outpostctl({"--db", db, "--json", "show", event_id}, dir.path());
    REQUIRE(shown.exit_code == 0);
    CHECK(nlohmann::json::parse(shown.out)["replay_actor"] == "maintenance screen");
}

TEST_CASE("replay --all-dead and purge --dead report how many rows they touched", "[cli]") {
    outpost::testing::TempDir dir;
    std::string db = dir.file("store.db");
    make_dead_event(db);

    CliRun replayed = run_outpostctl(
        {"--db", db, "--json", "replay", "--all-dead", "--reason", "retry all"}, dir.path());
    REQUIRE(replayed.exit_code == 0);
    CHECK(nlohmann::json::parse(replayed.out)["replayed"] == 1);

    make_dead_event(db);
    // The store never deletes the newest row (row ids must not be reused), so
    // record one more event after the DEAD one.
    REQUIRE_OK(outpost::testing::open_store(db, outpost::testing::test_options())
                   ->record_alarm(outpost::testing::sample_alarm("pump-2")));
    CliRun purged = run_outpostctl({"--db", db, "purge", "--dead", "--json"}, dir.path());
    REQUIRE(purged.exit_code == 0);
    CHECK(nlohmann::json::parse(purged.out)["purged"] == 1);
    CliRun status = run_outpostctl({"--db", db, "--json", "status"}, dir.path());
    CHECK(nlohmann::json::parse(status.out)["store"]["dead"] == 0);
}

TEST_CASE("malformed input gets distinct exit codes and a clear message on stderr", "[cli]") {
    outpost::testing::TempDir dir;
    std::string db = dir.file("store.db");
    outpost::testing::open_store(db, outpost::testing::test_options());

    SECTION("unknown command is a usage error") {
        CliRun run = run_outpostctl({"--db", db, "frobnicate"}, dir.path());
        CHECK(run.exit_code == 2);
        CHECK(run.err.find("unknown command 'frobnicate'") != std::string::npos);
        CHECK(run.out.empty());
    }
    SECTION("missing --db is a usage error") {
        CliRun run = run_outpostctl({"status"}, dir.path());
        CHECK(run.exit_code == 2);
        CHECK(run.err.find("--db") != std::string::npos);
    }
    SECTION("a bad severity is refused before anything is written") {
        CliRun run = run_outpostctl({"--db", db, "raise-alarm", "--device", "d", "--type", "T",
                                     "--severity", "apocalyptic", "--gateway", "gw-test"},
                                    dir.path());
        CHECK(run.exit_code == 2);
        CHECK(run.err.find("apocalyptic") != std::string::npos);
        CHECK(run.out.empty());
        CliRun status = run_outpostctl({"--db", db, "--json", "status"}, dir.path());
        CHECK(nlohmann::json::parse(status.out)["store"]["pending"] == 0);
    }
    SECTION("an unknown event id is 'not found', exit 3") {
        CliRun run = run_outpostctl({"--db", db, "show", "no-such-event"}, dir.path());
        CHECK(run.exit_code == 3);
        CHECK(run.err.find("no-such-event") != std::string::npos);
        CliRun replay =
            run_outpostctl({"--db", db, "replay", "no-such-event", "--reason", "x"}, dir.path());
        CHECK(replay.exit_code == 3);
    }
    SECTION("a file that is not a database is reported as corruption and left alone") {
        std::string junk = dir.file("junk.db");
        {
            std::ofstream out(junk, std::ios::binary);
            for (int i = 0; i < 512; ++i) out << "not an sqlite database ";
        }
        std::string before = outpost::testing::read_whole_file(junk);
        CliRun run = run_outpostctl({"--db", junk, "status"}, dir.path());
        CHECK(run.exit_code == 1);
        CHECK(run.err.find("corruption") != std::string::npos);
        CHECK(run.err.find(junk) != std::string::npos);
        CHECK(outpost::testing::read_whole_file(junk) == before);
    }
    SECTION("a missing database file is not silently created") {
        std::string missing = dir.file("missing.db");
        CliRun run = run_outpostctl({"--db", missing, "status"}, dir.path());
        CHECK(run.exit_code == 1);
        CHECK(run.err.find("missing.db") != std::string::npos);
        CHECK(outpost::testing::read_whole_file(missing).empty());
    }
    SECTION("--help works for the tool and for each command") {
        CliRun tool = run_outpostctl({"--help"}, dir.path());
        CHECK(tool.exit_code == 0);
        CHECK(tool.out.find("raise-alarm") != std::string::npos);
        CliRun command = run_outpostctl({"replay", "--help"}, dir.path());
        CHECK(command.exit_code == 0);
        CHECK(command.out.find("--all-dead") != std::string::npos);
    }
}

TEST_CASE("commands skip the whole-file check, and --check finds damage they never read",
          "[cli]") {
    outpost::testing::TempDir dir;
    const std::string db = dir.file("outbox.db");
    {
        auto store = outpost::testing::open_store(db, outpost::testing::test_options());
        REQUIRE_OK(store->record_alarm(outpost::testing::sample_alarm()));
    }
    // Pages on the freelist: read by PRAGMA quick_check, by no command.
    {
        outpost::testing::RawSqlite raw(db);
        raw.exec("CREATE TABLE scratch (x BLOB)");
        raw.exec("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 50)"
                 " INSERT INTO scratch SELECT randomblob(3000) FROM n");
        raw.exec("DROP TABLE scratch");
        raw.exec("PRAGMA wal_checkpoint(TRUNCATE)");
        REQUIRE(raw.integer("PRAGMA freelist_count") > 0);
    }
    // Break the first freelist trunk page's link to the next trunk.
    {
        std::fstream file(db, std::ios::in | std::ios::out | std::ios::binary);
        unsigned char header[100];
        file.read(reinterpret_cast<char*>(header), sizeof header);
        REQUIRE(file.good());
        const uint32_t page_size = header[16] * 256u + header[17];
        const uint32_t trunk = (uint32_t{header[32]} << 24) | (uint32_t{header[33]} << 16) |
                               (uint32_t{header[34]} << 8) | header[35];
        REQUIRE(trunk > 1);
        file.seekp(static_cast<std::streamoff>(trunk - 1) * page_size);
        const char bad_link[4] = {0x7f, 0x7f, 0x7f, 0x7f};
        file.write(bad_link, sizeof bad_link);
        REQUIRE(file.good());
    }
    const std::string damaged = outpost::testing::read_whole_file(db);

    CliRun plain = run_outpostctl({"--db", db, "--json", "status"}, dir.path());
    INFO(outpost::testing::one_line(plain.err));
    CHECK(plain.exit_code == 0);
    CHECK(nlohmann::json::parse(plain.out)["store"]["pending"] == 1);

    CliRun checked = run_outpostctl({"--db", db, "--check", "status"}, dir.path());
    INFO(outpost::testing::one_line(checked.err));
    CHECK(checked.exit_code == 1);
    CHECK(checked.err.find("corruption") != std::string::npos);
    // Refused and left untouched (compared as a bool: the bytes are binary).
    const bool untouched = outpost::testing::read_whole_file(db) == damaged;
    CHECK(untouched);
}
