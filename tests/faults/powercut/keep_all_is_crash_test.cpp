// Proves that "keep all pending" models a process crash, not a power cut:
// the kernel's page cache survives, so no acknowledged commit is lost in any
// journal or synchronous mode, even synchronous=OFF.
#include <catch2/catch.hpp>
#include <string>

#include "cut_run.h"

namespace outpost::testing {
namespace {

void crash_after_every_commit_and_write(const std::string& journal_mode) {
    PowercutOptions vfs_options;
    vfs_options.forward_syncs = false;
    WorkloadOptions workload;
    workload.journal_mode = journal_mode;
    workload.synchronous = "OFF";
    workload.transactions = 30;
    const CutPolicy keep_all{CutMode::kKeepAllPending, 0};

    int lost_pending_writes = 0;  // pending writes the cut had to keep
    for (int commit = 1; commit <= workload.transactions; ++commit) {
        CutPlan plan;
        plan.cut_after_commit = commit;
        plan.policy = keep_all;
        const CutRunResult run = run_with_cut(vfs_options, plan, workload);
        if (!run.error.empty()) FAIL(run.error);
        INFO(run.report);
        CHECK(check_acknowledged_prefix(run.recovered, run.outcome, workload).empty());
        CHECK(run.recovered.rows_per_transaction.size() == static_cast<std::size_t>(commit));
        lost_pending_writes += static_cast<int>(run.summary.pending);
    }
    CHECK(lost_pending_writes > 0);  // synchronous=OFF left plenty unsynced

    const IoCounters io = measure_workload(vfs_options, workload);
    const std::uint64_t writes =
        io.main_db.writes + io.wal.writes + io.journal.writes + io.other.writes;
    for (std::uint64_t n = 1; n <= writes + 20; n += 3) {
        CutPlan plan;
        plan.trigger = CutTrigger::during_write(n);
        plan.policy = keep_all;
        const CutRunResult run = run_with_cut(vfs_options, plan, workload);
        if (!run.error.empty()) FAIL(run.error);
        const std::string problem = check_acknowledged_prefix(run.recovered, run.outcome, workload);
        if (!problem.empty()) FAIL_CHECK(problem << "\n  " << run.report);
    }
}

TEST_CASE("keeping all pending writes loses no acknowledged commit in WAL mode, synchronous=OFF") {
    crash_after_every_commit_and_write("WAL");
}

TEST_CASE(
    "keeping all pending writes loses no acknowledged commit in DELETE mode, synchronous=OFF") {
    crash_after_every_commit_and_write("DELETE");
}

}  // namespace
}  // namespace outpost::testing
