// What the parent does after every run: check the database against the
// evidence, restart the store on it, and add the outcome to the totals.
#ifndef OUTPOST_PROOF_VERDICT_H
#define OUTPOST_PROOF_VERDICT_H

#include <cstdint>
#include <string>
#include <vector>

#include "outpost/store_options.h"
#include "proof/checker.h"
#include "proof/evidence.h"

namespace outpost::torture {

// The store options every torture run uses, on `vfs_name` ("" = default VFS).
StoreOptions torture_store_options(uint64_t quota_bytes, const std::string& vfs_name);

// Opens the store at `db_path` with the real VFS (SQLite recovery, the
// store's own open checks), retries every call whose outcome is still open
// with its token and key, records one new alarm, and closes. Returns what
// went wrong, empty when all of it worked.
std::vector<std::string> restart_store(const std::string& db_path, uint64_t quota_bytes,
                                       faults::EvidenceLog& log, const std::string& token_prefix);

struct Totals {
    uint64_t runs = 0;
    uint64_t cuts = 0;           // power cuts, or SIGKILLs that fired
    uint64_t broker_faults = 0;  // e2e --broker-faults: faults that fired
    uint64_t failed_runs = 0;
    uint64_t clean_cuts = 0;  // the trigger never fired: cut after the workload
    uint64_t lost = 0;
    uint64_t phantom = 0;
    uint64_t integrity_failures = 0;
    uint64_t duplicates = 0;
    uint64_t acknowledged = 0;
    uint64_t in_doubt_present = 0;
    uint64_t in_doubt_absent = 0;
    uint64_t purged = 0;

    // Adds the counts of one check. Loss, phantoms and integrity failures
    // add up over checks; the rest are per-database figures (the caller
    // chooses which check's figures count).
    void add_failures(const faults::CheckReport& report);
    void add_figures(const faults::CheckReport& report);
    // Adds the in-doubt figures of `report`. add_figures() leaves them out:
    // the caller picks the check that tells, the one before any retry.
    void add_in_doubt(const faults::CheckReport& report);
    bool ok() const { return lost == 0 && phantom == 0 && integrity_failures == 0; }
    std::string detail_line() const;
    // "cuts=N lost=L phantom=P integrity_failures=I duplicates=D", then
    // " broker_faults=B" when any fired
    std::string final_line() const;
};

}  // namespace outpost::torture

#endif  // OUTPOST_PROOF_VERDICT_H
