#include "cut_run.h"

#include <memory>

#include "temp_dir.h"

namespace outpost::testing {

namespace {

constexpr const char* kVfsName = "powercut-test";
constexpr const char* kDbName = "outbox.db";

}  // namespace

CutRunResult run_with_cut(const PowercutOptions& vfs_options, const CutPlan& plan,
                          const WorkloadOptions& workload) {
    CutRunResult result;
    TempDir running(TempDir::Base::kPreferTmpfs);
    TempDir after_cut(TempDir::Base::kPreferTmpfs);
    {
        auto vfs = PowercutVfs::create(kVfsName, vfs_options, &result.error);
        if (!vfs) return result;
        if (plan.trigger && !vfs->arm(*plan.trigger, plan.policy)) {
            result.error = "arm refused";
            return result;
        }
        WorkloadOptions options = workload;
        if (plan.cut_after_commit > 0) {
            options.after_commit = [&](int txn) {
                if (txn == plan.cut_after_commit) vfs->cut_now(plan.policy);
            };
        }
        result.outcome = run_workload(running.file(kDbName), kVfsName, options);
        if (!vfs->is_off()) vfs->cut_now(plan.policy);
        result.report = vfs->cut_report();
        result.summary = vfs->cut_summary();
        if (!vfs->write_images(after_cut.path(), &result.error)) return result;
    }  // the VFS is unregistered before recovery, which uses the default VFS
    result.recovered = recover(after_cut.file(kDbName));
    return result;
}

IoCounters measure_workload(const PowercutOptions& vfs_options, const WorkloadOptions& workload) {
    TempDir running(TempDir::Base::kPreferTmpfs);
    std::string error;
    auto vfs = PowercutVfs::create(kVfsName, vfs_options, &error);
    if (!vfs) return IoCounters{};
    run_workload(running.file(kDbName), kVfsName, workload);
    return vfs->counters();
}

}  // namespace outpost::testing
