#include "proof/workload.h"

#include <thread>

#include "proof/recorded_call.h"
#include "store/outbox.h"
#include "store/store_internal.h"

namespace outpost::torture {
namespace {

// Rows per SENT mark: the publisher's batch, small enough for a few marks
// per run to matter.
constexpr int kMarkBatch = 24;

// Three devices shared by all workers: their sequences interleave across
// batches, which is what the seq checks need.
std::string device_for(const std::string& token) {
    unsigned sum = 0;
    for (char c : token) sum = sum * 31 + static_cast<unsigned char>(c);
    return "dev-" + std::to_string(sum % 3);
}

// Worker 0's publisher duty: mark the oldest pending rows SENT, as the
// publisher would after their PUBACKs.
void mark_some_sent(Store& store, store::Db& reader, int64_t epoch,
                    const faults::EvidenceWriter& evidence) {
    auto rows = store::fetch_pending(reader, 0, kMarkBatch);
    if (!rows || rows->empty()) return;
    std::vector<int64_t> ids;
    std::vector<std::string> event_ids;
    for (const store::OutboxRow& row : *rows) {
        ids.push_back(row.id);
        event_ids.push_back(row.event_id);
    }
    evidence.marking(event_ids);
    if (store::mark_sent(store::core_of(store), ids, epoch)) evidence.marked(event_ids);
}

void worker(Store& store, const WorkloadPlan& plan, int index,
            const faults::EvidenceWriter& evidence, const std::function<bool()>& stop) {
    const int calls = plan.alarms / plan.workers + (index < plan.alarms % plan.workers ? 1 : 0);
    int64_t epoch = -1;
    store::Db reader;
    if (index == 0) {
        for (const RetryCall& retry : plan.retries) {
            if (stop()) return;
            record_call(store, retry.token, retry.key, evidence)
                .ignore_error("the evidence log records every outcome for the checker");
        }
    }
    // mark_every 0: a publisher holds the lease and marks (e2e mode).
    if (index == 0 && plan.mark_every > 0) {
        auto acquired = store::acquire_epoch(store::core_of(store), "torture");
        auto opened = store::core_of(store).open_reader();
        if (acquired && opened) {
            epoch = *acquired;
            reader = std::move(*opened);
        }
    }
    for (int call = 0; call < calls && !stop(); ++call) {
        const std::string token =
            plan.token_prefix + "w" + std::to_string(index) + "c" + std::to_string(call);
        record_call(store, token, key_for(token, call), evidence)
            .ignore_error("the evidence log records every outcome for the checker");
        if (epoch < 0) continue;
        if (call % plan.mark_every == plan.mark_every - 1) {
            mark_some_sent(store, reader, epoch, evidence);
        }
        if (call % plan.purge_every == plan.purge_every - 1) {
            evidence.purging();
            store.purge_expired().ignore_error(
                "purging is housekeeping under faults; the checker judges the rows");
        }
    }
}

}  // namespace

std::string key_for(const std::string& token, int call) {
    return call % 2 == 0 ? "key-" + token : "";
}

Alarm alarm_for(const std::string& token, const std::string& key) {
    Alarm alarm;
    alarm.device_id = device_for(token);
    alarm.alarm_type = "TORTURE";
    alarm.severity = Severity::kCritical;
    alarm.value = 42.0;
    alarm.unit = "V";
    alarm.text = token;
    alarm.idempotency_key = key;
    return alarm;
}

Status record_call(Store& store, const std::string& token, const std::string& key,
                   const faults::EvidenceWriter& evidence) {
    return faults::record_with_evidence(store, alarm_for(token, key), evidence);
}

void run_workload(Store& store, const WorkloadPlan& plan, const faults::EvidenceWriter& evidence,
                  const std::function<bool()>& stop) {
    std::vector<std::thread> threads;
    for (int index = 1; index < plan.workers; ++index) {
        threads.emplace_back(worker, std::ref(store), std::cref(plan), index, std::cref(evidence),
                             std::cref(stop));
    }
    worker(store, plan, 0, evidence, stop);
    for (std::thread& thread : threads) thread.join();
}

}  // namespace outpost::torture
