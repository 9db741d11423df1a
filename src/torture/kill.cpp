#include "torture/kill.h"

#include <signal.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "common/fault_point.h"
#include "faults/checker.h"
#include "outpost/store.h"
#include "torture/child.h"
#include "torture/verdict.h"
#include "torture/workload.h"

namespace outpost::torture {
namespace {

constexpr const char* kDbName = "outbox.db";
constexpr uint64_t kSmallQuota = 256 * 1024;
constexpr uint64_t kNormalQuota = 64ull * 1024 * 1024;
// First guess of how often a point is hit per run; lowered when a run ends
// without reaching the hit it was given (the child reports its hit count).
constexpr unsigned long kFirstHitLimit = 24;
// Alarms a run needs to pass the checkpoint threshold (1000 WAL frames).
constexpr int kLongRunAlarms = 700;

// One run in four uses the small quota, so the quota's purge runs too.
uint64_t quota_for(uint64_t run) {
    return run % 4 == 3 ? kSmallQuota : kNormalQuota;
}

std::string token_prefix(uint64_t run) {
    return "k" + std::to_string(run);
}

// The points this workload can reach: the store's. Publisher and bridge
// points need their own workloads and are left to their campaigns.
std::vector<const FaultPointInfo*> reachable_points() {
    std::vector<const FaultPointInfo*> points;
    for (const FaultPointInfo& point : kFaultPoints) {
        if (std::string(point.workload).rfind("store", 0) == 0) points.push_back(&point);
    }
    return points;
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
    std::ifstream retries(options.child_retries);
    for (std::string token, key; retries >> token >> key;) {
        plan.retries.push_back({token, key == "-" ? "" : key});
    }
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
    const std::string db = scratch + "/" + kDbName;
    const std::string retry_file = scratch + "/retries.txt";
    std::printf("outpost-torture kill: seed=%llu kills=%llu workers=%d alarms-per-run=%d dir=%s\n",
                static_cast<unsigned long long>(options.seed),
                static_cast<unsigned long long>(options.cuts), options.workers,
                options.alarms_per_run, scratch.c_str());
    std::fflush(stdout);

    Totals totals;
    faults::EvidenceLog log;
    std::map<std::string, unsigned long> hit_limit;
    std::map<std::string, uint64_t> kills_per_point;
    const std::vector<const FaultPointInfo*> points = reachable_points();
    const uint64_t max_runs = options.cuts * 4 + 2 * points.size();
    bool failed = false;
    for (uint64_t run = 0; run < max_runs && totals.cuts < options.cuts && !failed; ++run) {
        const FaultPointInfo& point = *points[run % points.size()];
        unsigned long& limit = hit_limit.emplace(point.name, kFirstHitLimit).first->second;
        const unsigned long hit = 1 + mix(options.seed * 0x100000001B3ull + run) % limit;
        const std::string fault = std::string(point.name) + ":" + std::to_string(hit);
        {
            std::ofstream out(retry_file, std::ios::trunc);
            for (const std::string& token : log.open_calls()) {
                const std::string& key = log.calls().at(token).key;
                out << token << ' ' << (key.empty() ? "-" : key) << '\n';
            }
        }
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
            kills_per_point[point.name]++;
        } else if (exit.exited && exit.code == 0 && exit.error.empty()) {
            auto hits = log.figures().find("fault_hits");
            unsigned long reached = hits == log.figures().end() ? 0 : hits->second;
            if (reached < hit) limit = reached > 0 ? reached : 1;
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
            for (const std::string& line : problems) std::printf("  %s\n", line.c_str());
            std::printf(
                "  files: %s\n  rerun: outpost-torture --mode kill --seed %llu --cuts %llu "
                "--workers %d --alarms-per-run %d --keep-failures (state accumulates: "
                "the whole campaign up to this run)\n",
                options.keep_failures ? scratch.c_str() : "(removed; add --keep-failures)",
                static_cast<unsigned long long>(options.seed),
                static_cast<unsigned long long>(totals.cuts), options.workers,
                options.alarms_per_run);
        }
    }
    if (!failed) {
        // The last restart: the store must open and record on what is left.
        std::vector<std::string> problems = restart_store(db, kNormalQuota, log, "final-");
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
    std::string per_point;
    for (const FaultPointInfo* point : points) {
        per_point +=
            std::string(" ") + point->name + "=" + std::to_string(kills_per_point[point->name]);
    }
    std::printf("kills per point:%s\n", per_point.c_str());
    if (totals.cuts < options.cuts && !failed) {
        std::printf("note: only %llu of %llu kills fired in %llu runs\n",
                    static_cast<unsigned long long>(totals.cuts),
                    static_cast<unsigned long long>(options.cuts),
                    static_cast<unsigned long long>(totals.runs));
    }
    if (totals.failed_runs == 0 || !options.keep_failures) remove_tree(scratch);
    std::printf("%s\n%s\n", totals.detail_line().c_str(), totals.final_line().c_str());
    return totals.ok() && totals.failed_runs == 0 && totals.cuts >= options.cuts ? 0 : 1;
}

}  // namespace outpost::torture
