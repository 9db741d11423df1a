#include "proof/verdict.h"

#include <memory>

#include "outpost/store.h"
#include "proof/workload.h"

namespace outpost::torture {

StoreOptions torture_store_options(uint64_t quota_bytes, const std::string& vfs_name) {
    StoreOptions options;
    options.gateway_id = "gw-torture";
    options.quota_bytes = quota_bytes;
    // Every SENT row may go at the next purge: purges run on every run.
    options.sent_retention = std::chrono::milliseconds(0);
    options.purge_batch_rows = 16;
    options.vfs_name = vfs_name;
    return options;
}

std::vector<std::string> restart_store(const std::string& db_path, uint64_t quota_bytes,
                                       faults::EvidenceLog& log, const std::string& token_prefix) {
    std::vector<std::string> problems;
    auto opened = Store::open(db_path, torture_store_options(quota_bytes, ""));
    if (!opened) {
        problems.push_back("restart: Store::open failed: " + opened.status().to_string());
        return problems;
    }
    Store& store = **opened;
    log.begin_run();  // a new process lifetime: the cut came before it
    faults::EvidenceWriter evidence(&log);
    for (const std::string& token : log.open_calls()) {
        const faults::CallEvidence& call = log.calls().at(token);
        Status status = record_call(store, token, call.key, evidence);
        if (!status && status.code() != StatusCode::kStoreFull) {
            problems.push_back("restart: retrying '" + token + "' failed: " + status.to_string());
        }
    }
    Status status = record_call(store, token_prefix + "after-restart", "", evidence);
    if (!status && status.code() != StatusCode::kStoreFull) {
        problems.push_back("restart: recording a new alarm failed: " + status.to_string());
    }
    status = store.close();
    if (!status) problems.push_back("restart: close failed: " + status.to_string());
    return problems;
}

void Totals::add_failures(const faults::CheckReport& report) {
    lost += report.lost;
    phantom += report.phantom;
    integrity_failures += report.integrity_failures;
}

void Totals::add_figures(const faults::CheckReport& report) {
    duplicates += report.duplicates;
    acknowledged += report.acknowledged;
    purged += report.purged;
}

void Totals::add_in_doubt(const faults::CheckReport& report) {
    in_doubt_present += report.in_doubt_present;
    in_doubt_absent += report.in_doubt_absent;
}

std::string Totals::detail_line() const {
    return "runs=" + std::to_string(runs) + " failed_runs=" + std::to_string(failed_runs) +
           " cuts_after_workload=" + std::to_string(clean_cuts) +
           " acknowledged=" + std::to_string(acknowledged) +
           " in_doubt_present=" + std::to_string(in_doubt_present) +
           " in_doubt_absent=" + std::to_string(in_doubt_absent) +
           " purged_after_sent=" + std::to_string(purged);
}

std::string Totals::final_line() const {
    return "cuts=" + std::to_string(cuts) + " lost=" + std::to_string(lost) +
           " phantom=" + std::to_string(phantom) +
           " integrity_failures=" + std::to_string(integrity_failures) +
           " duplicates=" + std::to_string(duplicates) +
           (broker_faults > 0 ? " broker_faults=" + std::to_string(broker_faults) : "");
}

}  // namespace outpost::torture
