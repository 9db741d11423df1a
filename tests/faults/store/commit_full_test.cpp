// SQLITE_FULL during COMMIT. The store reports a COMMIT refused with
// SQLITE_FULL as kDiskFull, "nothing was written" (write_batch.cpp, I4).
// That holds only if no byte of the commit frame can have reached the WAL.
// On a device without powersafe overwrite SQLite pads the WAL to a sector
// boundary with copies of the commit frame *after* writing it, so a full
// disk during the padding leaves a complete commit in the file: after a
// crash the "unwritten" alarm is there.
#include <catch2/catch.hpp>

#include "proof/checker.h"
#include "proof/evidence.h"
#include "proof/io_error_vfs.h"
#include "proof/powercut_vfs.h"
#include "proof/recorded_call.h"
#include "store_fixture.h"
#include "temp_dir.h"

namespace outpost::faults {
namespace {

using outpost::testing::TempDir;

struct Outcome {
    std::string code;  // of the call that met the full disk ("ok" if none did)
    CheckReport report;
};

// Records 3 alarms, then one whose n-th WAL write fails with SQLITE_FULL,
// then crashes the process (every write the OS had is kept) and checks.
Outcome full_at_wal_write(uint64_t n, bool powersafe_overwrite) {
    TempDir live;
    TempDir after;
    EvidenceLog log;
    Outcome outcome;
    std::string error;
    outpost::testing::PowercutOptions device;
    device.device.sector_size = 4096;
    device.device.powersafe_overwrite = powersafe_overwrite;
    device.forward_syncs = false;
    auto powercut = outpost::testing::PowercutVfs::create("commit-full-pc", device, &error);
    REQUIRE(powercut);
    {
        auto full = IoErrorVfs::create("commit-full", "commit-full-pc", &error);
        REQUIRE(full);
        StoreOptions options = outpost::testing::test_options();
        options.vfs_name = full->name();
        auto store = outpost::testing::open_store(live.file("outbox.db"), options);
        EvidenceWriter evidence(&log);
        for (int i = 0; i < 3; ++i) {
            Alarm alarm = outpost::testing::sample_alarm();
            alarm.text = "warm-" + std::to_string(i);
            REQUIRE_OK(record_with_evidence(*store, alarm, evidence));
        }
        IoFault fault;
        fault.op = IoOp::kWrite;
        fault.nth = n;
        fault.disk_full = true;
        fault.path_suffix = "-wal";
        full->inject(fault);
        Alarm alarm = outpost::testing::sample_alarm();
        alarm.text = "met-the-full-disk";
        Status status = record_with_evidence(*store, alarm, evidence);
        outcome.code = status_code_name(status.code());
        powercut->cut_now({outpost::testing::CutMode::kKeepAllPending, 0});  // a process crash
        store.reset();
    }
    REQUIRE(powercut->write_images(after.path(), &error));
    outcome.report = check_database(after.file("outbox.db"), log);
    return outcome;
}

}  // namespace

TEST_CASE("SQLITE_FULL at any WAL write of a COMMIT never leaves a phantom behind") {
    int unknown = 0;  // refused padding writes: the case that used to leave a phantom
    for (bool psow : {true, false}) {
        for (uint64_t n = 1; n <= 8; ++n) {
            Outcome outcome = full_at_wal_write(n, psow);
            INFO((psow ? "psow" : "no psow") << ", WAL write " << n << ": the call returned "
                                             << outcome.code << "; " << outcome.report.summary());
            for (const std::string& problem : outcome.report.problems) INFO(problem);
            CHECK(outcome.report.ok());
            if (!psow && outcome.code == "outcome_unknown") ++unknown;
            if (psow) CHECK(outcome.code != "outcome_unknown");  // still a clean disk_full
        }
    }
    // Without powersafe overwrite some WAL writes come after the commit frame:
    // the scenario is reached, and the store no longer calls it disk_full.
    CHECK(unknown > 0);
}

}  // namespace outpost::faults
