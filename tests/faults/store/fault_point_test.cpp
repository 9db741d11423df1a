// OUTPOST_FAULT=<point>[:<n>] must kill the process at exactly that step,
// and nothing else may happen without it. Each case runs the store workload
// in a child (this test program again, running the hidden case below) so the
// kill takes a real process down.
#include "common/fault_point.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "raw_sqlite.h"
#include "store/outbox.h"
#include "store/store_internal.h"
#include "store_fixture.h"
#include "temp_dir.h"

namespace outpost::testing {
namespace {

constexpr const char* kChildCase = "fault point child workload";

StoreOptions workload_options() {
    StoreOptions options = test_options();
    options.sent_retention = std::chrono::milliseconds(0);
    return options;
}

// Runs the hidden child case on `db` with OUTPOST_FAULT=`fault` (unset when
// empty); returns its wait status.
int run_child(const std::string& db, int alarms, bool publisher_steps, const std::string& fault) {
    std::fflush(stdout);
    const pid_t pid = ::fork();
    if (pid == 0) {  // no Catch assertion here: it would report from the child
        ::setenv("OUTPOST_FAULT_TEST_DB", db.c_str(), 1);
        ::setenv("OUTPOST_FAULT_TEST_ALARMS", std::to_string(alarms).c_str(), 1);
        ::setenv("OUTPOST_FAULT_TEST_PUBLISH", publisher_steps ? "1" : "0", 1);
        if (fault.empty()) {
            ::unsetenv("OUTPOST_FAULT");
        } else {
            ::setenv("OUTPOST_FAULT", fault.c_str(), 1);
        }
        ::dup2(2, 1);  // the child's report must not mix into the parent's TAP
        ::execl("/proc/self/exe", "fault_point_test", kChildCase, static_cast<char*>(nullptr));
        ::_exit(127);
    }
    REQUIRE(pid > 0);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    return status;
}

int64_t outbox_rows(const std::string& db) {
    return RawSqlite(db).integer("SELECT count(*) FROM outbox");
}

}  // namespace

// The workload the other cases kill: alarms one at a time (one commit each),
// with SENT marks and purges unless OUTPOST_FAULT_TEST_PUBLISH=0. Hidden:
// runs only when named, as the child.
TEST_CASE("fault point child workload", "[.]") {
    const char* db = std::getenv("OUTPOST_FAULT_TEST_DB");
    REQUIRE(db != nullptr);
    const int alarms = std::atoi(std::getenv("OUTPOST_FAULT_TEST_ALARMS"));
    const bool publish = std::string(std::getenv("OUTPOST_FAULT_TEST_PUBLISH")) == "1";
    auto store = open_store(db, workload_options());
    int64_t epoch = -1;
    store::Db reader;
    if (publish) {
        auto acquired = store::acquire_epoch(store::core_of(*store), "test");
        REQUIRE_OK(acquired);
        epoch = *acquired;
        auto opened = store::core_of(*store).open_reader();
        REQUIRE_OK(opened);
        reader = std::move(*opened);
    }
    for (int i = 1; i <= alarms; ++i) {
        REQUIRE_OK(store->record_alarm(sample_alarm("pump-" + std::to_string(i % 3))));
        if (!publish) continue;
        if (i % 4 == 0) {
            auto rows = store::fetch_pending(reader, 0, 8);
            REQUIRE_OK(rows);
            std::vector<int64_t> ids;
            for (const auto& row : *rows) ids.push_back(row.id);
            REQUIRE_OK(store::mark_sent(store::core_of(*store), ids, epoch));
        }
        if (i % 10 == 0) REQUIRE_OK(store->purge_expired());
    }
}

TEST_CASE("every fault point kills the store workload, and the store reopens after it") {
    for (const FaultPointInfo& point : kFaultPoints) {
        if (std::string(point.workload).rfind("store", 0) != 0) continue;  // not ours to reach
        DYNAMIC_SECTION(point.name) {
            TempDir dir;
            const std::string db = dir.file("outbox.db");
            const bool long_run = std::string(point.workload) == "store-long";
            const int status =
                run_child(db, long_run ? 900 : 60, true, std::string(point.name) + ":2");
            INFO(point.name << " (" << point.where << ")");
            REQUIRE(WIFSIGNALED(status));
            CHECK(WTERMSIG(status) == SIGKILL);
            auto store = open_store(db, workload_options());
            REQUIRE_OK(store->record_alarm(sample_alarm()));
            store.reset();
            CHECK(RawSqlite(db).text("PRAGMA integrity_check") == "ok");
        }
    }
}

TEST_CASE("without OUTPOST_FAULT no point fires") {
    TempDir dir;
    const int status = run_child(dir.file("outbox.db"), 30, true, "");
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
}

TEST_CASE("store.after_commit:5 kills after the fifth commit is durable, before its caller hears") {
    TempDir dir;
    const int status = run_child(dir.file("outbox.db"), 20, false, "store.after_commit:5");
    REQUIRE(WIFSIGNALED(status));
    CHECK(outbox_rows(dir.file("outbox.db")) == 5);
}

TEST_CASE("store.before_commit:5 kills before the fifth commit, which is then absent") {
    TempDir dir;
    const int status = run_child(dir.file("outbox.db"), 20, false, "store.before_commit:5");
    REQUIRE(WIFSIGNALED(status));
    CHECK(outbox_rows(dir.file("outbox.db")) == 4);
}

TEST_CASE("an OUTPOST_FAULT naming no point, or a bad count, leaves every point inert") {
    for (const char* bad :
         {"store.no_such_point", "store.after_commit:0", "store.after_commit:x"}) {
        DYNAMIC_SECTION(bad) {
            TempDir dir;
            const int status = run_child(dir.file("outbox.db"), 10, false, bad);
            REQUIRE(WIFEXITED(status));
            CHECK(WEXITSTATUS(status) == 0);
            CHECK(outbox_rows(dir.file("outbox.db")) == 10);
        }
    }
}

TEST_CASE("fault point names are unique and follow <part>.<step>") {
    for (size_t i = 0; i < kFaultPointCount; ++i) {
        const std::string name = kFaultPoints[i].name;
        CHECK(name.find('.') != std::string::npos);
        CHECK(name.find(':') == std::string::npos);
        for (size_t j = i + 1; j < kFaultPointCount; ++j) CHECK(name != kFaultPoints[j].name);
    }
    STATIC_REQUIRE(is_fault_point("store.after_commit"));
    STATIC_REQUIRE_FALSE(is_fault_point("store.after_comit"));
}

}  // namespace outpost::testing
