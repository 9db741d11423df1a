// Writing events: the alarm fast path and the general transaction.
#ifndef OUTPOST_STORE_RECORD_H
#define OUTPOST_STORE_RECORD_H

#include <string>

#include "outpost/alarm.h"
#include "outpost/event.h"
#include "outpost/status.h"
#include "store/store_core.h"

namespace outpost::store {

// Inserts `alarm` into alarm_record and its event into outbox, inside the
// open batch transaction. With an idempotency key that exists already,
// writes nothing and fills `out` from the existing row (duplicate = true).
// Precondition: validate_alarm(alarm) is OK.
Status insert_alarm(BatchContext& context, const Alarm& alarm, RecordedEvent* out);

// Inserts an application event into the outbox (no alarm_record row).
// Precondition: validate_event(event) is OK.
Status insert_event(BatchContext& context, const Event& event, RecordedEvent* out);

// Refuses (kInvalidArgument) an alarm whose envelope could exceed
// max_event_bytes with any id, sequence and clock values. Builds the trial
// envelope only when the cheap bound (alarm_envelope_bound) does not already
// show it fits, i.e. not on the happy path. Precondition: validate_alarm OK.
Status check_alarm_size(StoreCore& core, const Alarm& alarm);

// Rough bytes an alarm adds to the database, for the quota check.
uint64_t estimated_alarm_bytes(const Alarm& alarm);

}  // namespace outpost::store

#endif  // OUTPOST_STORE_RECORD_H
