// One record_alarm call with its evidence: reported as started before the
// call and as acknowledged or failed after it. The alarm's text is the call's
// token, which is how the checker maps a database row back to its call.
#ifndef OUTPOST_PROOF_RECORDED_CALL_H
#define OUTPOST_PROOF_RECORDED_CALL_H

#include "outpost/store.h"
#include "proof/evidence.h"

namespace outpost::faults {

// Returns record_alarm's status. `alarm.text` must be unique per logical call
// (a retry reuses it, with the same idempotency key).
Status record_with_evidence(Store& store, const Alarm& alarm, const EvidenceWriter& evidence);

}  // namespace outpost::faults

#endif  // OUTPOST_PROOF_RECORDED_CALL_H
