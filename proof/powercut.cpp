#include "proof/powercut.h"

#include <cstdio>
#include <memory>

#include "outpost/store.h"
#include "proof/checker.h"
#include "proof/child.h"
#include "proof/verdict.h"
#include "proof/workload.h"

namespace outpost::torture {
namespace {

constexpr const char* kVfsName = "outpost-torture";
// The store checkpoints at 1000 WAL frames; a run that must reach a
// checkpoint write records at least this many alarms.
constexpr int kCheckpointRunAlarms = 700;

const char* trigger_name(testing::CutTrigger::Kind kind) {
    switch (kind) {
        case testing::CutTrigger::Kind::kBeforeSync:
            return "before_sync";
        case testing::CutTrigger::Kind::kAfterSync:
            return "after_sync";
        case testing::CutTrigger::Kind::kDuringWrite:
            return "during_write";
        case testing::CutTrigger::Kind::kDuringCheckpointWrite:
            return "during_checkpoint_write";
    }
    return "?";
}

const char* mode_name(testing::CutMode mode) {
    switch (mode) {
        case testing::CutMode::kDropAllPending:
            return "drop_all";
        case testing::CutMode::kKeepAllPending:
            return "keep_all";
        case testing::CutMode::kRandom:
            return "random";
    }
    return "?";
}

}  // namespace

std::string CutPlan::describe() const {
    return std::string("cut ") + std::to_string(index) + ": trigger " + trigger_name(trigger.kind) +
           "(" + std::to_string(trigger.n) + "), mode " + mode_name(policy.mode) + ", tear seed " +
           std::to_string(policy.seed) + ", sector " + std::to_string(device.sector_size) +
           (device.powersafe_overwrite ? ", psow" : ", no psow") + ", quota " +
           std::to_string(quota_bytes) + ", workers " + std::to_string(workload.workers) +
           ", alarms " + std::to_string(workload.alarms);
}

CutPlan plan_cut(const CampaignOptions& options, uint64_t index) {
    using Kind = testing::CutTrigger::Kind;
    static constexpr Kind kKinds[] = {Kind::kBeforeSync, Kind::kAfterSync, Kind::kDuringWrite,
                                      Kind::kDuringCheckpointWrite};
    static constexpr testing::CutMode kModes[] = {testing::CutMode::kDropAllPending,
                                                  testing::CutMode::kKeepAllPending,
                                                  testing::CutMode::kRandom};
    uint64_t random = mix(options.seed * 0x100000001B3ull + index);
    auto next = [&](uint64_t bound) {
        random = mix(random);
        return random % bound;
    };
    CutPlan plan;
    plan.index = index;
    plan.workload.token_prefix = "c" + std::to_string(index);
    plan.workload.workers = options.workers;
    plan.workload.alarms = options.alarms_per_run;
    const Kind kind = kKinds[index % 4];
    if (kind == Kind::kDuringCheckpointWrite) {
        plan.workload.alarms = std::max(plan.workload.alarms, kCheckpointRunAlarms);
    }
    // Measured: a dozen syncs at open, then about 0.6 per alarm with four
    // workers (group commit) and one with a single worker. [1, 5/8 alarms +
    // 12] reaches from the open to the end of most runs; a trigger past the
    // end becomes a cut after the workload.
    const uint64_t syncs = static_cast<uint64_t>(plan.workload.alarms) * 5 / 8 + 12;
    switch (kind) {
        case Kind::kBeforeSync:
            plan.trigger = testing::CutTrigger::before_sync(1 + next(syncs));
            break;
        case Kind::kAfterSync:
            plan.trigger = testing::CutTrigger::after_sync(1 + next(syncs));
            break;
        case Kind::kDuringWrite:
            plan.trigger = testing::CutTrigger::during_write(1 + next(3 * syncs));
            break;
        case Kind::kDuringCheckpointWrite:
            plan.trigger = testing::CutTrigger::during_checkpoint_write();
            break;
    }
    plan.policy.mode = kModes[(index / 4) % 3];
    plan.policy.seed = mix(random + 1);
    plan.device.powersafe_overwrite = (index / 12) % 2 == 0;
    plan.device.sector_size = next(2) == 0 ? 512 : 4096;
    plan.quota_bytes = next(4) == 0 ? kSmallQuotaBytes : kNormalQuotaBytes;
    return plan;
}

int powercut_child(const CampaignOptions& options) {
    const CutPlan plan = plan_cut(options, options.child_index);
    faults::EvidenceWriter evidence(options.evidence_fd);
    testing::PowercutOptions vfs_options;
    vfs_options.device = plan.device;
    vfs_options.forward_syncs = false;  // the live files are scratch: speed
    std::string error;
    auto vfs = testing::PowercutVfs::create(kVfsName, vfs_options, &error);
    if (!vfs) {
        std::fprintf(stderr, "outpost-torture child: %s\n", error.c_str());
        return 3;
    }
    vfs->arm(plan.trigger, plan.policy);
    {
        auto store =
            Store::open(options.child_db, torture_store_options(plan.quota_bytes, kVfsName));
        if (!store) {
            evidence.figure("open_failed", 1);
        } else {
            run_workload(**store, plan.workload, evidence, [&] { return vfs->is_off(); });
        }
    }  // closed before the cut is taken, or after it (then closing does no I/O)
    if (!vfs->is_off()) {
        vfs->cut_now(plan.policy);
        evidence.figure("clean_cut", 1);
    }
    const testing::IoCounters counters = vfs->counters();
    evidence.figure("syncs", counters.total_syncs());
    evidence.figure("writes", counters.main_db.writes + counters.wal.writes);
    evidence.figure("torn", vfs->cut_summary().torn);
    evidence.figure("dropped", vfs->cut_summary().dropped);
    if (!vfs->write_images(options.child_images, &error)) {
        std::fprintf(stderr, "outpost-torture child: %s\n", error.c_str());
        return 4;
    }
    return 0;
}

namespace {

// One cut: child, check, restart, check again. Adds to `totals`; prints and
// returns false on failure.
bool run_one_cut(const CampaignOptions& options, const std::string& scratch, uint64_t index,
                 Totals& totals) {
    const CutPlan plan = plan_cut(options, index);
    const std::string run_dir = scratch + "/cut-" + std::to_string(index);
    const std::string live = run_dir + "/live";
    const std::string after = run_dir + "/after";
    std::vector<std::string> problems;
    if (!make_dir(run_dir) || !make_dir(live) || !make_dir(after)) {
        problems.push_back("cannot create " + run_dir);
    }
    faults::EvidenceLog log;
    if (problems.empty()) {
        ChildExit exit =
            run_child({"--child", "powercut", "--child-index", std::to_string(index), "--seed",
                       std::to_string(options.seed), "--workers", std::to_string(options.workers),
                       "--alarms-per-run", std::to_string(options.alarms_per_run), "--child-db",
                       live + "/" + kRunDbName, "--child-images", after},
                      {}, log);
        if (!exit.error.empty() || !exit.exited || exit.code != 0) {
            problems.push_back("workload child " + exit.describe());
        }
    }
    faults::CheckReport before;
    faults::CheckReport after_restart;
    if (problems.empty()) {
        const std::string db = after + "/" + kRunDbName;
        before = faults::check_database(db, log);
        for (const std::string& line : before.problems) problems.push_back("after cut: " + line);
        for (const std::string& line :
             restart_store(db, plan.quota_bytes, log, plan.workload.token_prefix)) {
            problems.push_back(line);
        }
        after_restart = faults::check_database(db, log);
        for (const std::string& line : after_restart.problems) {
            problems.push_back("after restart: " + line);
        }
    }
    totals.runs++;
    totals.cuts++;
    if (log.figures().count("clean_cut")) totals.clean_cuts++;
    if (options.verbose) {
        std::string figures;
        for (const auto& [name, value] : log.figures()) {
            figures += " " + name + "=" + std::to_string(value);
        }
        std::printf("%s;%s; %s\n", plan.describe().c_str(), figures.c_str(),
                    after_restart.summary().c_str());
    }
    totals.add_failures(before);
    totals.add_failures(after_restart);
    totals.add_figures(after_restart);
    totals.add_in_doubt(before);  // after the restart's retries nothing is in doubt
    // A run that failed outside the checks (child crash, restart) counts as
    // an integrity failure: the store did not come back whole.
    const bool checks_failed = !before.ok() || !after_restart.ok();
    if (!problems.empty() && !checks_failed) totals.integrity_failures++;
    if (problems.empty()) {
        remove_tree(run_dir);
        return true;
    }
    totals.failed_runs++;
    std::printf("FAIL %s\n", plan.describe().c_str());
    for (const std::string& line : problems) std::printf("  %s\n", line.c_str());
    std::printf("  files: %s\n  rerun: %s\n",
                options.keep_failures ? run_dir.c_str() : "(removed; add --keep-failures)",
                rerun_command(options, index).c_str());
    std::fflush(stdout);
    if (!options.keep_failures) remove_tree(run_dir);
    return false;
}

}  // namespace

int powercut_campaign(const CampaignOptions& options) {
    const std::string scratch = make_scratch_dir(options.dir);
    if (scratch.empty()) {
        std::fprintf(stderr, "outpost-torture: cannot create a scratch directory\n");
        return 2;
    }
    std::printf(
        "outpost-torture powercut: seed=%llu cuts=%llu workers=%d alarms-per-run=%d dir=%s\n",
        static_cast<unsigned long long>(options.seed),
        static_cast<unsigned long long>(options.only ? 1 : options.cuts), options.workers,
        options.alarms_per_run, scratch.c_str());
    std::fflush(stdout);
    Totals totals;
    const uint64_t first = options.only ? *options.only : 0;
    const uint64_t end = options.only ? *options.only + 1 : options.cuts;
    for (uint64_t index = first; index < end; ++index) run_one_cut(options, scratch, index, totals);
    if (totals.failed_runs == 0 || !options.keep_failures) remove_tree(scratch);
    std::printf("%s\n%s\n", totals.detail_line().c_str(), totals.final_line().c_str());
    return totals.ok() && totals.failed_runs == 0 ? 0 : 1;
}

}  // namespace outpost::torture
