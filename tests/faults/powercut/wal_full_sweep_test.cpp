// Proves the store's durability premise under the power-cut simulator: with
// journal_mode=WAL and synchronous=FULL, whatever sync the power cuts at and
// whatever happens to the unsynced writes, SQLite recovers a sound database
// holding every transaction whose COMMIT returned OK, and the transactions
// present form a prefix of commit order.
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "cut_run.h"

namespace outpost::testing {
namespace {

std::vector<CutPolicy> sweep_policies() {
    return {{CutMode::kDropAllPending, 0},
            {CutMode::kKeepAllPending, 0},
            {CutMode::kRandom, 1},
            {CutMode::kRandom, 2},
            {CutMode::kRandom, 3}};
}

// What a sweep went through, to prove its cuts were not all harmless.
struct SweepStats {
    int experiments = 0;
    int interrupted = 0;       // the workload had not finished at the cut
    int with_lost_writes = 0;  // some pending operation was dropped or torn
    int with_torn_writes = 0;
    int with_garbage = 0;        // some sector was filled with garbage
    int in_flight_survived = 0;  // the COMMIT that failed came back anyway
};

// Cuts at every sync of the workload, before and after it takes effect, under
// every policy.
SweepStats sweep_every_sync(const PowercutOptions& vfs_options, const WorkloadOptions& workload) {
    const std::uint64_t syncs = measure_workload(vfs_options, workload).total_syncs();
    REQUIRE(syncs > static_cast<std::uint64_t>(workload.transactions));
    SweepStats stats;
    for (std::uint64_t n = 1; n <= syncs; ++n) {
        for (const CutTrigger& trigger : {CutTrigger::before_sync(n), CutTrigger::after_sync(n)}) {
            for (const CutPolicy& policy : sweep_policies()) {
                CutPlan plan;
                plan.trigger = trigger;
                plan.policy = policy;
                const CutRunResult run = run_with_cut(vfs_options, plan, workload);
                if (!run.error.empty()) FAIL(run.error);
                ++stats.experiments;
                stats.interrupted += run.outcome.failed ? 1 : 0;
                stats.with_lost_writes += run.summary.dropped + run.summary.torn > 0 ? 1 : 0;
                stats.with_torn_writes += run.summary.torn > 0 ? 1 : 0;
                stats.with_garbage += run.summary.garbage_sectors > 0 ? 1 : 0;
                const auto& rows = run.recovered.rows_per_transaction;
                stats.in_flight_survived +=
                    rows.count(run.outcome.last_acknowledged + 1) != 0 ? 1 : 0;
                const std::string problem =
                    check_acknowledged_prefix(run.recovered, run.outcome, workload);
                if (!problem.empty()) {
                    FAIL_CHECK(problem << "\n  " << run.report << "\n  last acknowledged "
                                       << run.outcome.last_acknowledged
                                       << ", workload error: " << run.outcome.error);
                }
            }
        }
    }
    std::fprintf(stderr,
                 "%llu syncs, %d experiments: %d interrupted, %d lost writes, %d torn, "
                 "%d garbage, %d failed COMMITs survived\n",
                 static_cast<unsigned long long>(syncs), stats.experiments, stats.interrupted,
                 stats.with_lost_writes, stats.with_torn_writes, stats.with_garbage,
                 stats.in_flight_survived);
    return stats;
}

PowercutOptions fast_device(bool powersafe_overwrite) {
    PowercutOptions vfs_options;
    vfs_options.forward_syncs = false;
    vfs_options.device.powersafe_overwrite = powersafe_overwrite;
    return vfs_options;
}

// The sweep, and proof that its cuts did hurt: the workload was interrupted,
// pending writes were lost and torn, and garbage appeared exactly when the
// device does not promise powersafe overwrite.
void sweep_and_check_it_bit(bool powersafe_overwrite) {
    const SweepStats stats = sweep_every_sync(fast_device(powersafe_overwrite), WorkloadOptions{});
    CHECK(stats.interrupted > 0);
    CHECK(stats.with_lost_writes > 0);
    CHECK(stats.with_torn_writes > 0);
    CHECK((stats.with_garbage > 0) == !powersafe_overwrite);
}

TEST_CASE("WAL FULL: a cut at any sync keeps every acknowledged commit (powersafe overwrite)") {
    sweep_and_check_it_bit(true);
}

TEST_CASE("WAL FULL: a cut at any sync keeps every acknowledged commit (no powersafe overwrite)") {
    sweep_and_check_it_bit(false);
}

TEST_CASE("WAL FULL: a cut during any write keeps every acknowledged commit") {
    for (const bool powersafe_overwrite : {true, false}) {
        const PowercutOptions vfs_options = fast_device(powersafe_overwrite);
        const WorkloadOptions workload;
        const IoCounters io = measure_workload(vfs_options, workload);
        const std::uint64_t writes =
            io.main_db.writes + io.wal.writes + io.journal.writes + io.other.writes;
        for (std::uint64_t n = 1; n <= writes; ++n) {
            CutPlan plan;
            plan.trigger = CutTrigger::during_write(n);
            plan.policy = {CutMode::kRandom, n};
            const CutRunResult run = run_with_cut(vfs_options, plan, workload);
            if (!run.error.empty()) FAIL(run.error);
            const std::string problem =
                check_acknowledged_prefix(run.recovered, run.outcome, workload);
            if (!problem.empty()) FAIL_CHECK(problem << "\n  " << run.report);
        }
    }
}

TEST_CASE("WAL FULL: a cut during the first checkpoint write keeps every acknowledged commit") {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        CutPlan plan;
        plan.trigger = CutTrigger::during_checkpoint_write();
        plan.policy = {CutMode::kRandom, seed};
        const WorkloadOptions workload;
        const CutRunResult run = run_with_cut(fast_device(seed % 2 == 0), plan, workload);
        if (!run.error.empty()) FAIL(run.error);
        // The trigger fired mid-workload, on the main database file.
        CHECK(run.outcome.failed);
        CHECK(run.report.find("during write") != std::string::npos);
        CHECK(run.report.find("outbox.db)") != std::string::npos);
        const std::string problem = check_acknowledged_prefix(run.recovered, run.outcome, workload);
        if (!problem.empty()) FAIL_CHECK(problem << "\n  " << run.report);
    }
}

}  // namespace
}  // namespace outpost::testing
