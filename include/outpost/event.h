// An application event enqueued inside a general transaction (see
// Store::transact). Alarms have their own, simpler entry point.
#ifndef OUTPOST_EVENT_H
#define OUTPOST_EVENT_H

#include <string>

namespace outpost {

// Its rules are the envelope's (schema/event.schema.json): lengths count
// characters, aggregate_type and aggregate_id hold no control character.
// payload_json must be one JSON object with no key repeated in any object,
// no byte-order mark, nested at most 15 deep, and its members alarmType,
// severity, value, unit and text, where present, follow the alarm's rules.
struct Event {
    std::string event_type;      // required, [A-Z][A-Z0-9_]{0,63}
    std::string device_id;       // required, [A-Za-z0-9._-]{1,64}; orders the events
    std::string aggregate_type;  // required, 1 to 64 characters, e.g. "valve"
    std::string aggregate_id;    // required, 1 to 256 characters, e.g. the row's key
    std::string payload_json;    // required: a JSON object, at most StoreOptions::max_event_bytes
    std::string idempotency_key; // optional, as Alarm::idempotency_key
};

}  // namespace outpost

#endif  // OUTPOST_EVENT_H
