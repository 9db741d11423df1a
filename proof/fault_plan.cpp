#include "proof/fault_plan.h"

#include <cstdio>
#include <fstream>
#include <utility>

namespace outpost::torture {
namespace {

// First guess of how often a point is hit per run; lowered when a run ends
// without reaching the hit it was given (the child reports its hit count).
constexpr unsigned long kFirstHitLimit = 24;

}  // namespace

std::vector<const FaultPointInfo*> fault_points_where(
    const std::function<bool(const FaultPointInfo&)>& wanted) {
    std::vector<const FaultPointInfo*> points;
    for (const FaultPointInfo& point : kFaultPoints) {
        if (wanted(point)) points.push_back(&point);
    }
    return points;
}

FaultPlanner::FaultPlanner(std::vector<const FaultPointInfo*> points, uint64_t seed)
    : points_(std::move(points)), seed_(seed) {}

const FaultPointInfo& FaultPlanner::point(uint64_t run) const {
    return *points_[run % points_.size()];
}

unsigned long FaultPlanner::hit(uint64_t run) {
    const unsigned long limit = limit_.emplace(point(run).name, kFirstHitLimit).first->second;
    return 1 + mix(seed_ * 0x100000001B3ull + run) % limit;
}

std::string FaultPlanner::fault(uint64_t run) {
    return std::string(point(run).name) + ":" + std::to_string(hit(run));
}

void FaultPlanner::not_killed(uint64_t run, unsigned long hit, unsigned long reached) {
    unsigned long& limit = limit_.emplace(point(run).name, kFirstHitLimit).first->second;
    if (reached < hit) limit = reached > 0 ? reached : 1;
}

std::string FaultPlanner::kills_per_point() const {
    std::string line;
    for (const FaultPointInfo* point : points_) {
        auto found = kills_.find(point->name);
        line += std::string(" ") + point->name + "=" +
                std::to_string(found == kills_.end() ? 0 : found->second);
    }
    return line;
}

void print_campaign_failure(const char* mode, const CampaignOptions& options,
                            const std::string& scratch, uint64_t kills,
                            const std::vector<std::string>& problems) {
    for (const std::string& line : problems) std::printf("  %s\n", line.c_str());
    const std::string broker_faults =
        options.broker_faults > 0 ? " --broker-faults " + std::to_string(options.broker_faults)
                                  : "";
    std::printf(
        "  files: %s\n  rerun: outpost-torture --mode %s --seed %llu --cuts %llu --workers %d "
        "--alarms-per-run %d%s%s --keep-failures (state accumulates: the whole campaign up to "
        "this run)\n",
        options.keep_failures ? scratch.c_str() : "(removed; add --keep-failures)", mode,
        static_cast<unsigned long long>(options.seed), static_cast<unsigned long long>(kills),
        options.workers, options.alarms_per_run, broker_faults.c_str(),
        options.receipts ? "" : " --no-receipts");
    std::fflush(stdout);
}

void print_kill_shortfall(const CampaignOptions& options, uint64_t kills, uint64_t runs) {
    if (kills >= options.cuts) return;
    std::printf("note: only %llu of %llu kills fired in %llu runs\n",
                static_cast<unsigned long long>(kills),
                static_cast<unsigned long long>(options.cuts),
                static_cast<unsigned long long>(runs));
}

bool write_retries(const std::string& path, const faults::EvidenceLog& log) {
    std::ofstream out(path, std::ios::trunc);
    for (const std::string& token : log.open_calls()) {
        const std::string& key = log.calls().at(token).key;
        out << token << ' ' << (key.empty() ? "-" : key) << '\n';
    }
    return static_cast<bool>(out);
}

std::vector<RetryCall> read_retries(const std::string& path) {
    std::vector<RetryCall> retries;
    std::ifstream in(path);
    for (std::string token, key; in >> token >> key;) {
        retries.push_back({token, key == "-" ? "" : key});
    }
    return retries;
}

}  // namespace outpost::torture
