// A migration whose COMMIT fails is outcome-unknown: the open says so, and
// the next open finds the migration either applied or not and, either way,
// ends on the latest schema with a working store.
#include <catch2/catch.hpp>

#include "proof/io_error_vfs.h"
#include "outpost/store.h"
#include "store/migrations.h"
#include "store_fixture.h"
#include "temp_dir.h"
#include "proof/powercut_vfs.h"

namespace outpost::faults {
namespace {

using outpost::testing::CutMode;
using outpost::testing::CutTrigger;
using outpost::testing::PowercutVfs;
using outpost::testing::TempDir;

// The next open, on the default VFS: completes the schema and records.
void check_next_open(const std::string& path, int* found_version) {
    auto reopened = Store::open(path, outpost::testing::test_options());
    REQUIRE_OK(reopened);
    const OpenReport& report = (*reopened)->open_report();
    CHECK(report.to_version == store::latest_schema_version());
    *found_version = report.from_version;
    auto recorded = (*reopened)->record_alarm(outpost::testing::sample_alarm());
    REQUIRE_OK(recorded);
    CHECK(recorded->seq == 1);
}

}  // namespace

TEST_CASE(
    "a power cut at any sync of a new store's first open leaves a file the next open completes") {
    for (CutMode mode : {CutMode::kDropAllPending, CutMode::kKeepAllPending}) {
        const bool keep = mode == CutMode::kKeepAllPending;
        int unknown_outcomes = 0;
        int applied = 0;      // the next open found the migration in place
        int not_applied = 0;  // ... found an empty database and applied it
        int cuts = 0;
        for (uint64_t sync = 1;; ++sync) {
            TempDir running(TempDir::Base::kPreferTmpfs);
            TempDir after(TempDir::Base::kPreferTmpfs);
            StatusCode code = StatusCode::kOk;
            {
                std::string error;
                auto vfs = PowercutVfs::create("migration-cut", {}, &error);
                REQUIRE(vfs);
                REQUIRE(vfs->arm(CutTrigger::before_sync(sync), {mode, sync}));
                StoreOptions options = outpost::testing::test_options();
                options.vfs_name = vfs->name();
                auto opened = Store::open(running.file("o.db"), options);
                if (!vfs->is_off()) {
                    // No sync left to cut: every one was cut once above.
                    REQUIRE_OK(opened);
                    break;
                }
                REQUIRE_FALSE(opened.is_ok());
                code = opened.status().code();
                INFO("cut before sync " << sync << (keep ? " keeping" : " dropping")
                                        << " pending writes: " << opened.status().to_string());
                CHECK((code == StatusCode::kIoError || code == StatusCode::kOutcomeUnknown));
                REQUIRE(vfs->write_images(after.path(), &error));
            }
            ++cuts;
            int found_version = -1;
            check_next_open(after.file("o.db"), &found_version);
            if (code != StatusCode::kOutcomeUnknown) continue;
            ++unknown_outcomes;
            if (found_version == store::latest_schema_version()) ++applied;
            if (found_version == 0) ++not_applied;
        }
        INFO((keep ? "keeping" : "dropping") << " pending writes, " << cuts << " cuts");
        CHECK(cuts >= 2);
        // The migration's COMMIT was among the syncs cut, and said so.
        CHECK(unknown_outcomes >= 1);
        // Kept, its frames make it applied; dropped, it never happened.
        if (keep) CHECK(applied >= 1);
        if (!keep) CHECK(not_applied >= 1);
    }
}

TEST_CASE(
    "a migration COMMIT whose sync fails reports outcome unknown, and the next open completes it") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    std::string error;
    auto vfs = IoErrorVfs::create("migration-io-error", "", &error);
    REQUIRE(vfs);
    IoFault fault;
    fault.op = IoOp::kSync;
    fault.path_suffix = "-wal";  // in WAL mode only a COMMIT syncs the WAL
    vfs->inject(fault);
    const uint64_t failures_before = vfs->failures();
    StoreOptions options = outpost::testing::test_options();
    options.vfs_name = vfs->name();
    {
        auto opened = Store::open(path, options);
        REQUIRE_FALSE(opened.is_ok());
        INFO(opened.status().to_string());
        CHECK(opened.status().code() == StatusCode::kOutcomeUnknown);
        CHECK_THAT(opened.status().message(), Catch::Contains("migration"));
    }
    CHECK(vfs->failures() == failures_before + 1);
    vfs->clear();
    int found_version = -1;
    check_next_open(path, &found_version);
    // In one process the failed frames sit past the WAL's valid end: SQLite
    // never counts them, so here the migration did not happen.
    CHECK(found_version == 0);
}

}  // namespace outpost::faults
