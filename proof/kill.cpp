#include "proof/kill.h"

#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "common/fault_point.h"
#include "outpost/store.h"
#include "proof/checker.h"
#include "proof/child.h"
#include "proof/fault_plan.h"
#include "proof/verdict.h"
#include "proof/workload.h"

namespace outpost::torture {
namespace {

// Alarms a run needs to pass the checkpoint threshold (1000 WAL frames).
constexpr int kLongRunAlarms = 700;

// One run in four uses the small quota, so the quota's purge runs too.
uint64_t quota_for(uint64_t run) {
    return run % 4 == 3 ? kSmallQuotaBytes : kNormalQuotaBytes;
}

std::string token_prefix(uint64_t run) {
    return "k" + std::to_string(run);
}

// The points this workload can reach: the store's. Publisher and bridge
// points need their own workloads (--mode e2e, tests/faults, tests/e2e).
std::vector<const FaultPointInfo*> reachable_points() {
    return fault_points_where([](const FaultPointInfo& point) {
        return std::string(point.workload).rfind("store", 0) == 0;
    });
}

}  // namespace

int kill_child(const CampaignOptions& options) {
    faults::EvidenceWriter evidence(options.evidence_fd);
    WorkloadPlan plan;
    plan.token_prefix = token_prefix(options.child_index);
    plan.workers = options.workers;
    plan.alarms = options.alarms_per_run;
    const char* armed = armed_fault_point();
    for (const FaultPointInfo& point : kFaultPoints) {
        if (armed == point.name && std::string(point.workload) == "store-long") {
            plan.alarms = std::max(plan.alarms, kLongRunAlarms);
        }
    }
    plan.retries = read_retries(options.child_retries);
    auto store =
        Store::open(options.child_db, torture_store_options(quota_for(options.child_index), ""));
    if (!store) {
        evidence.figure("open_failed", 1);
        std::fprintf(stderr, "outpost-torture child: %s\n", store.status().to_string().c_str());
        return 5;
    }
    run_workload(**store, plan, evidence, [] { return false; });
    evidence.figure("fault_hits", armed_fault_hits_so_far());
    return (*store)->close() ? 0 : 6;
}

int kill_campaign(const CampaignOptions& options) {
    const std::string scratch = make_scratch_dir(options.dir);
    if (scratch.empty()) {
        std::fprintf(stderr, "outpost-torture: cannot create a scratch directory\n");
        return 2;
    }
    const std::string db = scratch + "/" + kRunDbName;
    const std::string retry_file = scratch + "/retries.txt";
    std::printf("outpost-torture kill: seed=%llu kills=%llu workers=%d alarms-per-run=%d dir=%s\n",
                static_cast<unsigned long long>(options.seed),
                static_cast<unsigned long long>(options.cuts), options.workers,
                options.alarms_per_run, scratch.c_str());
    std::fflush(stdout);

    Totals totals;
    faults::EvidenceLog log;
    FaultPlanner planner(reachable_points(), options.seed);
    const uint64_t point_count = planner.points().size();
    const uint64_t max_runs = options.cuts * 4 + 2 * point_count;
    bool failed = false;
    for (uint64_t run = 0; run < max_runs && totals.cuts < options.cuts && !failed; ++run) {
        const FaultPointInfo& point = planner.point(run);
        const unsigned long hit = planner.hit(run);
        const std::string fault = planner.fault(run);
        write_retries(retry_file, log);
        log.clear_figures();
        ChildExit exit =
            run_child({"--child", "kill", "--child-index", std::to_string(run), "--seed",
                       std::to_string(options.seed), "--workers", std::to_string(options.workers),
                       "--alarms-per-run", std::to_string(options.alarms_per_run), "--child-db", db,
                       "--child-retries", retry_file},
                      {{"OUTPOST_FAULT", fault}}, log);
        totals.runs++;
        std::vector<std::string> problems;
        if (exit.killed_by(SIGKILL)) {
            totals.cuts++;
            planner.killed(run);
        } else if (exit.exited && exit.code == 0 && exit.error.empty()) {
            auto hits = log.figures().find("fault_hits");
            planner.not_killed(run, hit, hits == log.figures().end() ? 0 : hits->second);
        } else {
            problems.push_back("child " + exit.describe() + " (restart after the previous kill?)");
        }
        faults::CheckReport report = faults::check_database(db, log);
        totals.add_failures(report);
        for (const std::string& line : report.problems) problems.push_back(line);
        if (!problems.empty() && report.ok()) totals.integrity_failures++;
        if (!problems.empty()) {
            failed = true;
            totals.failed_runs++;
            std::printf("FAIL kill run %llu: OUTPOST_FAULT=%s (%s), quota %llu\n",
                        static_cast<unsigned long long>(run), fault.c_str(), point.where,
                        static_cast<unsigned long long>(quota_for(run)));
            print_campaign_failure("kill", options, scratch, totals.cuts, problems);
        }
    }
    if (!failed) {
        // The last restart: the store must open and record on what is left.
        std::vector<std::string> problems = restart_store(db, kNormalQuotaBytes, log, "final-");
        faults::CheckReport report = faults::check_database(db, log);
        totals.add_failures(report);
        totals.add_figures(report);
        totals.add_in_doubt(report);
        for (const std::string& line : report.problems) problems.push_back(line);
        if (!problems.empty()) {
            totals.failed_runs++;
            if (report.ok()) totals.integrity_failures++;
            std::printf("FAIL final restart\n");
            for (const std::string& line : problems) std::printf("  %s\n", line.c_str());
        }
    }
    std::printf("kills per point:%s\n", planner.kills_per_point().c_str());
    if (!failed) print_kill_shortfall(options, totals.cuts, totals.runs);
    if (totals.failed_runs == 0 || !options.keep_failures) remove_tree(scratch);
    std::printf("%s\n%s\n", totals.detail_line().c_str(), totals.final_line().c_str());
    return totals.ok() && totals.failed_runs == 0 && totals.cuts >= options.cuts ? 0 : 1;
}

}  // namespace outpost::torture
