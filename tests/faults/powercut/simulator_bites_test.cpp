// Proves the simulator is not a no-op: where SQLite's documentation says a
// power cut can lose or corrupt acknowledged commits, the simulator makes it
// happen; where it says "never corrupt, loses a suffix" (WAL + NORMAL), that
// is exactly what it shows.
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>

#include "cut_run.h"

namespace outpost::testing {
namespace {

PowercutOptions fast_vfs() {
    PowercutOptions options;
    options.forward_syncs = false;
    return options;
}

TEST_CASE("WAL with synchronous=OFF: dropping unsynced writes loses acknowledged commits") {
    WorkloadOptions workload;
    workload.synchronous = "OFF";
    int cuts_with_loss = 0;
    for (int commit : {1, 10, 25, 50}) {
        CutPlan plan;
        plan.cut_after_commit = commit;
        plan.policy = {CutMode::kDropAllPending, 0};
        const CutRunResult run = run_with_cut(fast_vfs(), plan, workload);
        if (!run.error.empty()) FAIL(run.error);
        REQUIRE(run.outcome.last_acknowledged == commit);
        cuts_with_loss += lost_acknowledged(run.recovered, run.outcome, workload) ? 1 : 0;
    }
    CHECK(cuts_with_loss > 0);
}

TEST_CASE("WAL with synchronous=NORMAL: a cut loses a suffix of commits, never corrupts") {
    WorkloadOptions workload;
    workload.synchronous = "NORMAL";
    int cuts_with_loss = 0;
    int experiments = 0;
    for (int commit = 1; commit <= workload.transactions; ++commit) {
        for (const CutPolicy& policy :
             {CutPolicy{CutMode::kDropAllPending, 0}, CutPolicy{CutMode::kRandom, 11},
              CutPolicy{CutMode::kRandom, 12}}) {
            CutPlan plan;
            plan.cut_after_commit = commit;
            plan.policy = policy;
            const CutRunResult run = run_with_cut(fast_vfs(), plan, workload);
            if (!run.error.empty()) FAIL(run.error);
            ++experiments;
            const std::string problem = check_sound_prefix(run.recovered, run.outcome, workload);
            if (!problem.empty()) {
                FAIL_CHECK(problem << " after commit " << commit << "\n  " << run.report);
            }
            cuts_with_loss += lost_acknowledged(run.recovered, run.outcome, workload) ? 1 : 0;
        }
    }
    std::fprintf(stderr, "NORMAL: %d of %d cuts lost acknowledged commits\n", cuts_with_loss,
                 experiments);
    CHECK(cuts_with_loss > 0);
}

TEST_CASE("synchronous=OFF with torn writes: some seeds corrupt the database, some lose commits") {
    int corrupt = 0;
    int lost = 0;
    int experiments = 0;
    for (const std::string journal_mode : {"WAL", "DELETE"}) {
        WorkloadOptions workload;
        workload.journal_mode = journal_mode;
        workload.synchronous = "OFF";
        workload.transactions = 40;
        for (std::uint64_t seed = 1; seed <= 30; ++seed) {
            CutPlan plan;
            plan.cut_after_commit = static_cast<int>(10 + seed % 31);
            plan.policy = {CutMode::kRandom, seed};
            const CutRunResult run = run_with_cut(fast_vfs(), plan, workload);
            if (!run.error.empty()) FAIL(run.error);
            ++experiments;
            corrupt += run.recovered.corrupt() ? 1 : 0;
            lost += lost_acknowledged(run.recovered, run.outcome, workload) ? 1 : 0;
        }
    }
    std::fprintf(stderr, "OFF + tearing: %d corrupt, %d lost acknowledged commits, of %d\n",
                 corrupt, lost, experiments);
    CHECK(corrupt > 0);
    CHECK(lost > 0);
}

}  // namespace
}  // namespace outpost::testing
