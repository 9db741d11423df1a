// Input validation and the event envelope (schema/event.schema.json).
// The envelope is built once, at commit, and stored verbatim: every retry,
// restart and replay publishes the very same bytes under the same eventId.
#ifndef OUTPOST_STORE_ENVELOPE_H
#define OUTPOST_STORE_ENVELOPE_H

#include <cstdint>
#include <string>

#include "common/text_checks.h"
#include "outpost/alarm.h"
#include "outpost/event.h"
#include "outpost/status.h"

namespace outpost::store {

constexpr int kSchemaVersion = 1;
constexpr size_t kMaxIdempotencyKeyBytes = 128;

// is_valid_identifier, is_valid_event_type and is_valid_utf8 live in
// common/text_checks.h: the bridge applies the same rules.

Status validate_alarm(const Alarm& alarm);
Status validate_event(const Event& event);

// Everything the envelope needs besides the event itself.
struct EnvelopeContext {
    std::string event_id;
    std::string gateway_id;
    int64_t seq = 0;
    int64_t wall_ms = 0;
    std::string boot_id;
    int64_t uptime_ms = 0;
};

std::string alarm_envelope(const Alarm& alarm, const EnvelopeContext& context);
// Precondition: validate_event(event) is OK (payload_json parses as an object).
std::string event_envelope(const Event& event, const EnvelopeContext& context);

// RFC 3339 UTC with milliseconds, e.g. "1970-01-01T00:00:12.345Z".
std::string format_rfc3339_ms(int64_t unix_ms);

}  // namespace outpost::store

#endif  // OUTPOST_STORE_ENVELOPE_H
