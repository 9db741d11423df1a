// What firmware reports, and what the store hands back once it is durable.
#ifndef OUTPOST_ALARM_H
#define OUTPOST_ALARM_H

#include <cstdint>
#include <optional>
#include <string>

#include "outpost/export.h"

namespace outpost {

enum class Severity { kInfo, kWarning, kMinor, kMajor, kCritical };

// "info", "warning", "minor", "major", "critical".
OUTPOST_API const char* severity_name(Severity severity);
// Parses the names above; nullopt for anything else.
OUTPOST_API std::optional<Severity> parse_severity(const std::string& name);

// One alarm as the firmware reports it, by the envelope's rules
// (schema/event.schema.json). Identifiers (device_id) must match
// [A-Za-z0-9._-]{1,64}: they become MQTT topic levels. Text is UTF-8;
// lengths count characters (code points); no field holds a control
// character (U+0000-U+001F, U+007F-U+009F) but text, which may hold tab and
// line feed.
struct Alarm {
    std::string device_id;                  // required
    std::string alarm_type;                 // required, 1 to 64 characters, e.g. "OVER_TEMP"
    std::string event_type = "ALARM_RAISED";  // or "ALARM_CLEARED": [A-Z][A-Z0-9_]{0,63}
    Severity severity = Severity::kMajor;
    std::optional<double> value;            // the measured value, if any (finite; -0 reads 0)
    std::string unit;                       // at most 32 characters
    std::string text;                       // at most 1024 characters
    // Optional caller key (at most 128 bytes). Recording again with the same
    // key returns the first record's event and writes nothing. Keys are
    // remembered while their outbox row exists (until the SENT retention
    // purge removes it).
    std::string idempotency_key;
};

// An event the store has made durable.
struct RecordedEvent {
    std::string event_id;   // UUIDv7, canonical text
    std::string device_id;
    int64_t seq = 0;        // per-device sequence number, from 1
    // True when the idempotency key matched an earlier record: the fields
    // above are that record's, and nothing new was written.
    bool duplicate = false;
};

}  // namespace outpost

#endif  // OUTPOST_ALARM_H
