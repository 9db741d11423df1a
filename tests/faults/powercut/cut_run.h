// One power-cut experiment: run the workload on a fresh database under a new
// power-cut VFS, cut, write the images into a second fresh directory and let
// SQLite recover them with the default VFS.
#ifndef OUTPOST_TESTS_FAULTS_POWERCUT_CUT_RUN_H
#define OUTPOST_TESTS_FAULTS_POWERCUT_CUT_RUN_H

#include <optional>
#include <string>

#include "proof/powercut_vfs.h"
#include "workload.h"

namespace outpost::testing {

struct CutPlan {
    // Armed before the workload opens the database, so sync and write counts
    // include creating the schema.
    std::optional<CutTrigger> trigger;
    // > 0: cut right after this COMMIT returned OK.
    int cut_after_commit = 0;
    CutPolicy policy;
    // If nothing above fired, the power goes when the workload is done.
};

struct CutRunResult {
    WorkloadOutcome outcome;
    Recovered recovered;
    std::string report;  // the VFS's cut report, for failure messages
    CutSummary summary;
    std::string error;  // set if the experiment itself could not run
};

CutRunResult run_with_cut(const PowercutOptions& vfs_options, const CutPlan& plan,
                          const WorkloadOptions& workload);

// I/O of a whole workload under the VFS with no cut.
IoCounters measure_workload(const PowercutOptions& vfs_options, const WorkloadOptions& workload);

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_FAULTS_POWERCUT_CUT_RUN_H
