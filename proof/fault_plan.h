// What the SIGKILL campaigns (kill, e2e) share: which fault point and hit a
// run is armed with, learned per point from the runs that ended without
// being killed, and the calls a restarted child retries first.
#ifndef OUTPOST_PROOF_FAULT_PLAN_H
#define OUTPOST_PROOF_FAULT_PLAN_H

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "common/fault_point.h"
#include "proof/evidence.h"
#include "proof/options.h"
#include "proof/workload.h"

namespace outpost::torture {

// The rows of kFaultPoints for which `wanted(point)` holds, in table order.
std::vector<const FaultPointInfo*> fault_points_where(
    const std::function<bool(const FaultPointInfo&)>& wanted);

// Cycles over `points` and picks each run's hit from the seed, below a
// per-point limit that starts as a guess and drops to what a run that was
// not killed reported reaching. A pure function of (seed, run) and the
// outcomes reported so far.
class FaultPlanner final {
  public:
    FaultPlanner(std::vector<const FaultPointInfo*> points, uint64_t seed);

    const FaultPointInfo& point(uint64_t run) const;
    // The hit (1-based) run `run` is armed with.
    unsigned long hit(uint64_t run);
    // "<point>:<hit>", the OUTPOST_FAULT value of run `run`.
    std::string fault(uint64_t run);
    // A run armed with `hit` ended without a kill after `reached` hits.
    void not_killed(uint64_t run, unsigned long hit, unsigned long reached);
    // Run `run` was killed at its point.
    void killed(uint64_t run) { ++kills_[point(run).name]; }
    // " <point>=<kills>" for every point, in table order.
    std::string kills_per_point() const;
    const std::vector<const FaultPointInfo*>& points() const { return points_; }

  private:
    std::vector<const FaultPointInfo*> points_;
    uint64_t seed_;
    std::map<std::string, unsigned long> limit_;
    std::map<std::string, uint64_t> kills_;
};

// After a failed run of a SIGKILL campaign in `mode` ("kill", "e2e"):
// prints `problems`, where the files are, and the command that repeats the
// campaign up to that run (its state accumulates over runs).
void print_campaign_failure(const char* mode, const CampaignOptions& options,
                            const std::string& scratch, uint64_t kills,
                            const std::vector<std::string>& problems);
// Prints a note when fewer than options.cuts kills fired in `runs` runs.
void print_kill_shortfall(const CampaignOptions& options, uint64_t kills, uint64_t runs);

// The calls whose outcome `log` still leaves open, one "token key|-" line
// each, for the next child to retry (read_retries reads them back).
bool write_retries(const std::string& path, const faults::EvidenceLog& log);
std::vector<RetryCall> read_retries(const std::string& path);

}  // namespace outpost::torture

#endif  // OUTPOST_PROOF_FAULT_PLAN_H
