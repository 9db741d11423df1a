// An application event enqueued inside a general transaction (see
// Store::transact). Alarms have their own, simpler entry point.
#ifndef OUTPOST_EVENT_H
#define OUTPOST_EVENT_H

#include <string>

namespace outpost {

struct Event {
    std::string event_type;      // required, [A-Z][A-Z0-9_]{0,63}
    std::string device_id;       // required, [A-Za-z0-9._-]{1,64}; orders the events
    std::string aggregate_type;  // required, e.g. "valve"
    std::string aggregate_id;    // required, e.g. the application row's key
    std::string payload_json;    // required: a JSON object, at most StoreOptions::max_event_bytes
    std::string idempotency_key; // optional, as Alarm::idempotency_key
};

}  // namespace outpost

#endif  // OUTPOST_EVENT_H
