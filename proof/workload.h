// The workload a torture child runs against a store: alarms recorded from
// several threads, SENT marks and purges interleaved by worker 0 (so the
// whole write path runs, checkpoints included once the WAL is long enough),
// every call reported as evidence before and after it happens.
//
// With workers = 1 the sequence of store calls is fixed by the plan, so a run
// is repeatable; with more workers, group commit batches depend on timing.
#ifndef OUTPOST_PROOF_WORKLOAD_H
#define OUTPOST_PROOF_WORKLOAD_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "outpost/store.h"
#include "proof/evidence.h"

namespace outpost::torture {

// The database file of a kill or power-cut run, and the store quotas its
// runs choose from (the small one makes the quota's purge run too).
constexpr const char* kRunDbName = "outbox.db";
constexpr uint64_t kSmallQuotaBytes = 256 * 1024;
constexpr uint64_t kNormalQuotaBytes = 64ull * 1024 * 1024;

// A call to make again because its outcome was never learned.
struct RetryCall {
    std::string token;
    std::string key;  // empty: the first attempt had no idempotency key
};

struct WorkloadPlan {
    std::string token_prefix;  // unique per run: tokens name calls across runs
    int workers = 4;
    int alarms = 200;                // over all workers
    int mark_every = 6;              // worker 0 marks SENT after this many of its records;
                                     // 0: no marks, no purges (a publisher marks)
    int purge_every = 20;            // and purges after this many
    std::vector<RetryCall> retries;  // made first, by worker 0
};

// The alarm a call records: its text is the token, so the checker can tell
// which call wrote a row; half of the calls carry an idempotency key.
Alarm alarm_for(const std::string& token, const std::string& key);
std::string key_for(const std::string& token, int call);

// Records the alarm of call `token` (alarm_for) with its evidence.
Status record_call(Store& store, const std::string& token, const std::string& key,
                   const faults::EvidenceWriter& evidence);

// Runs the plan on `store`. `stop` is polled between calls (the power is
// off); a call that fails is reported and the worker goes on unless `stop`.
void run_workload(Store& store, const WorkloadPlan& plan, const faults::EvidenceWriter& evidence,
                  const std::function<bool()>& stop);

}  // namespace outpost::torture

#endif  // OUTPOST_PROOF_WORKLOAD_H
