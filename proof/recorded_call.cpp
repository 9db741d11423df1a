#include "proof/recorded_call.h"

namespace outpost::faults {

Status record_with_evidence(Store& store, const Alarm& alarm, const EvidenceWriter& evidence) {
    evidence.started(alarm.text, alarm.idempotency_key);
    auto recorded = store.record_alarm(alarm);
    if (recorded) {
        evidence.acknowledged(alarm.text, *recorded);
        return Status::ok();
    }
    evidence.failed(alarm.text, recorded.status());
    return recorded.status();
}

}  // namespace outpost::faults
