// What the store accepts from the application, and the event envelope it
// builds (schema/event.schema.json), both by the contract in
// common/envelope_contract.h that the bridge applies too.
//
// An alarm's envelope is not stored: it is rebuilt from its alarm_record and
// outbox rows every time it is read (schema/001_initial.sql says why). So
// alarm_envelope() is part of the stored format: the same fields must give
// the same bytes in every release, or an upgrade would change what pending
// rows publish under eventIds consumers may have seen already.
// tests/unit/envelope/golden/ pins the bytes. An application event's
// envelope is built once, at commit, and stored as built.
#ifndef OUTPOST_STORE_ENVELOPE_H
#define OUTPOST_STORE_ENVELOPE_H

#include <cstdint>
#include <string>

#include "outpost/alarm.h"
#include "outpost/event.h"
#include "outpost/status.h"

namespace outpost::store {

constexpr size_t kMaxIdempotencyKeyBytes = 128;

// OK when every field of `alarm` satisfies the envelope contract (lengths in
// code points, identifiers, no control characters but tab and line feed in
// text, a finite value) and the idempotency key is UTF-8 of at most
// kMaxIdempotencyKeyBytes bytes. Else kInvalidArgument naming the field.
Status validate_alarm(const Alarm& alarm);

// The same for an application event. payload_json must be one JSON object
// read the strict way (common/strict_json.h: no repeated key, no byte-order
// mark), nested so that the envelope stays within envelope::kMaxDepth, and
// its alarm members (alarmType, severity, value, unit, text), where present,
// must follow their rules.
Status validate_event(const Event& event);

// Everything the envelope needs besides the event itself.
struct EnvelopeContext {
    std::string event_id;
    std::string gateway_id;
    int64_t seq = 0;
    int64_t wall_ms = 0;  // written as occurredAt, clamped to years 0000-9999
    std::string boot_id;
    int64_t uptime_ms = 0;
};

// The alarm's envelope: members in sorted key order, no white space, the
// optional payload members unit, text and value left out when empty/absent,
// strings escaped as append_json_string describes, value as
// format_json_double. Precondition: validate_alarm(alarm) is OK.
std::string alarm_envelope(const Alarm& alarm, const EnvelopeContext& context);

// An upper bound on alarm_envelope(alarm, context).size() without building
// it: `skeleton_bytes` is alarm_envelope_skeleton_bytes(context), and each
// string field adds at most 6 bytes per byte (the widest escape, \u00XX) in
// each of its at most two places (device_id and alarm_type also make up
// aggregateId). Precondition: validate_alarm(alarm) is OK.
size_t alarm_envelope_bound(const Alarm& alarm, size_t skeleton_bytes);
// The envelope of the widest alarm with one-byte strings: every optional
// member present, the longest severity name and the longest double text.
size_t alarm_envelope_skeleton_bytes(const EnvelopeContext& context);

// The event's envelope, as nlohmann's dump() writes it (sorted keys, the
// payload re-serialised). Precondition: validate_event(event) is OK.
std::string event_envelope(const Event& event, const EnvelopeContext& context);

// A finite double as the alarm envelope writes it: the shortest text, in
// characters, that reads back to the same double (std::to_chars without a
// precision, C++17 [charconv]): fixed or exponent form, whichever is
// shorter, fixed on a tie. So 97.5 -> "97.5", 100.0 -> "100", 0.1 -> "0.1",
// 0.1 + 0.2 -> "0.30000000000000004", 1e21 -> "1e+21", 1e-7 -> "1e-07",
// -0.0 -> "-0", and a large integral double keeps all its digits while that
// is not longer: -8589515981063002112.0 -> "-8589515981063002112". Chosen
// because it is exact (a consumer reads back the very double the firmware
// recorded) and fully specified by the standard, so it depends on neither
// the locale, a printf precision nor the C library.
std::string format_json_double(double value);

}  // namespace outpost::store

#endif  // OUTPOST_STORE_ENVELOPE_H
