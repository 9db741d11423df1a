#include "proof/vm/campaign.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

#include "proof/child.h"
#include "proof/observer.h"
#include "proof/verdict.h"
#include "proof/vm/crash_state.h"
#include "proof/vm/disk_image.h"
#include "proof/vm/disk_layout.h"
#include "proof/vm/recording.h"
#include "proof/vm/state_check.h"

namespace outpost::torture::vm {
namespace {

constexpr const char* kGatewayId = "gw-vm";

struct VmTotals {
    Totals totals;
    uint64_t recordings = 0;
    uint64_t failed_recordings = 0;
    uint64_t journal_recoveries = 0;
    uint64_t fsck_repairs = 0;
    uint64_t retried = 0;
    uint64_t flush_points = 0;

    std::string line() const {
        return "recordings=" + std::to_string(recordings) +
               " failed_recordings=" + std::to_string(failed_recordings) +
               " flush_points=" + std::to_string(flush_points) +
               " journal_recoveries=" + std::to_string(journal_recoveries) +
               " fsck_repairs=" + std::to_string(fsck_repairs) +
               " retried_calls=" + std::to_string(retried);
    }
};

// Adds one state's outcome; prints it when it failed (or always, verbose).
bool tally(const StateResult& result, const CampaignOptions& options, VmTotals& vm) {
    Totals& totals = vm.totals;
    totals.runs++;
    totals.cuts++;
    totals.add_failures(result.report);
    totals.add_figures(result.report);
    if (result.journal_recovered) vm.journal_recoveries++;
    if (result.fsck_repaired) vm.fsck_repairs++;
    vm.retried += result.retried;
    if (!result.problems.empty() && result.report.ok()) totals.integrity_failures++;
    const bool ok = result.problems.empty() && result.report.ok();
    if (options.verbose || !ok) {
        std::printf("%s%s; %s%s%s\n", ok ? "" : "FAIL ", result.state.describe().c_str(),
                    result.report.summary().c_str(),
                    result.fsck_repaired ? "; torn superblock repaired by e2fsck -y" : "",
                    result.journal_recovered ? "; journal recovered" : "");
    }
    if (!ok) {
        totals.failed_runs++;
        for (const std::string& line : result.report.problems) std::printf("  %s\n", line.c_str());
        for (const std::string& line : result.problems) std::printf("  %s\n", line.c_str());
        std::printf("  disk: %s\n", options.keep_failures ? result.image.c_str()
                                                          : "(removed; add --keep-failures)");
    }
    std::fflush(stdout);
    return ok;
}

// Records once and checks `count` states of it. False if anything failed.
bool one_recording(const CampaignOptions& options, const VmImages& images, MqttObserver& observer,
                   const std::string& scratch, uint64_t first_id, uint64_t count, VmTotals& vm) {
    const uint64_t run = vm.recordings++;
    RecordingPlan plan;
    plan.prefix = "v" + std::to_string(run);
    plan.alarms = options.alarms_per_run;
    plan.connections = options.workers;
    plan.gateway_id = kGatewayId;
    if (!options.mount_options.empty()) plan.mount_options = options.mount_options;
    const std::string dir = scratch + "/recording-" + std::to_string(run);
    std::string error;
    auto recording = record(images, plan, observer, dir, &error);
    if (!recording) {
        std::printf("FAIL recording %llu: %s\n", static_cast<unsigned long long>(run),
                    error.c_str());
        vm.failed_recordings++;
        return false;
    }
    bool ok = recording->problems.empty();
    const uint64_t seed = mix(options.seed * 0x100000001B3ull + run);
    const std::vector<CrashState> states = plan_states(*recording->log, count, seed, first_id);
    vm.flush_points += flush_points(*recording->log).size();
    std::printf(
        "recording %llu: %zu log entries, %zu flushes, %llu acknowledged, VM %.0f s; "
        "checking %zu crash states\n",
        static_cast<unsigned long long>(run), recording->log->entries().size(),
        flush_points(*recording->log).size(),
        static_cast<unsigned long long>(recording->evidence.acknowledged_calls()),
        recording->vm_seconds, states.size());
    if (!ok) {
        vm.failed_recordings++;
        std::printf("FAIL recording %llu (%s):\n", static_cast<unsigned long long>(run),
                    dir.c_str());
        for (const std::string& line : recording->problems) std::printf("  %s\n", line.c_str());
    }
    std::fflush(stdout);
    auto base = DiskImage::load(recording->base_image, &error);
    if (!base) {
        std::printf("FAIL recording %llu: %s\n", static_cast<unsigned long long>(run),
                    error.c_str());
        return false;
    }
    Replayer replayer(*recording->log, *base, kFsBytes);
    const size_t per_boot = static_cast<size_t>(std::max(1, options.states_per_boot));
    for (size_t first = 0; first < states.size(); first += per_boot) {
        const std::vector<CrashState> batch(states.begin() + static_cast<std::ptrdiff_t>(first),
                                            states.begin() + static_cast<std::ptrdiff_t>(std::min(
                                                                 states.size(), first + per_boot)));
        const std::string batch_dir = dir + "/check-" + std::to_string(batch.front().id);
        bool batch_ok = true;
        const auto started = std::chrono::steady_clock::now();
        const std::vector<StateResult> results =
            check_states(images, *recording, replayer, batch, batch_dir, kGatewayId);
        if (options.verbose) {
            std::printf(
                "check VM: %zu states in %.1f s\n", batch.size(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
        }
        for (const StateResult& result : results) batch_ok = tally(result, options, vm) && batch_ok;
        if (batch_ok || !options.keep_failures) remove_tree(batch_dir);
        ok = ok && batch_ok;
    }
    if (ok || !options.keep_failures) remove_tree(dir);
    return ok;
}

}  // namespace

int vm_campaign(const CampaignOptions& options) {
    std::string error;
    const auto images = VmImages::in(options.vm_dir, &error);
    if (!images) {
        std::fprintf(stderr, "outpost-torture vm: %s\n", error.c_str());
        return 2;
    }
    if (static_cast<uint64_t>(options.alarms_per_run) * 2 >= kMaxRecords) {
        std::fprintf(stderr, "outpost-torture vm: --alarms-per-run must stay below %llu\n",
                     static_cast<unsigned long long>(kMaxRecords / 2));
        return 2;
    }
    const std::string scratch = make_scratch_dir(options.dir);
    if (scratch.empty()) {
        std::fprintf(stderr, "outpost-torture vm: cannot create a scratch directory\n");
        return 2;
    }
    auto observer = MqttObserver::start(scratch, &error);
    if (!observer) {
        std::fprintf(stderr, "outpost-torture vm: %s\n", error.c_str());
        remove_tree(scratch);
        return 2;
    }
    std::printf(
        "outpost-torture vm: seed=%llu cuts=%llu alarms-per-run=%d connections=%d "
        "states-per-recording=%d states-per-boot=%d vm=%s dir=%s\n",
        static_cast<unsigned long long>(options.seed),
        static_cast<unsigned long long>(options.cuts), options.alarms_per_run, options.workers,
        options.states_per_recording, options.states_per_boot, options.vm_dir.c_str(),
        scratch.c_str());
    std::fflush(stdout);
    VmTotals vm;
    bool ok = true;
    for (uint64_t next = 0; next < options.cuts;) {
        const uint64_t count = std::min<uint64_t>(
            options.cuts - next, static_cast<uint64_t>(options.states_per_recording));
        ok = one_recording(options, *images, *observer, scratch, next, count, vm) && ok;
        next += count;
        if (vm.failed_recordings > 0 && vm.totals.cuts == 0) break;  // nothing works: stop
    }
    observer.reset();
    if (ok || !options.keep_failures) remove_tree(scratch);
    std::printf("%s\n%s\n%s\n", vm.line().c_str(), vm.totals.detail_line().c_str(),
                vm.totals.final_line().c_str());
    return ok && vm.failed_recordings == 0 && vm.totals.ok() ? 0 : 1;
}

}  // namespace outpost::torture::vm
