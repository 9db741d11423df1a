// The C API's record calls: an alarm, or one event with a JSON payload,
// durable on return.
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "capi/error.h"
#include "capi/handles.h"
#include "capi/sized.h"

using namespace outpost;
using namespace outpost::capi;

namespace {

// Copies `event` into `recorded`; kInternal if its id does not fit (a bug).
outpost_code copy_recorded(const RecordedEvent& event, outpost_recorded* recorded,
                           outpost_error* error) {
    if (event.event_id.size() >= sizeof recorded->event_id) {
        return fail(error, OUTPOST_INTERNAL, "an eventId longer than a UUID was returned");
    }
    std::memcpy(recorded->event_id, event.event_id.c_str(), event.event_id.size() + 1);
    recorded->seq = event.seq;
    recorded->duplicate = event.duplicate ? 1 : 0;
    return succeed(error);
}

// The structs as first versioned: every field up to idempotency_key.
constexpr size_t kAlarmFirstSize = offsetof(outpost_alarm, idempotency_key) + sizeof(char*);
constexpr size_t kEventFirstSize = offsetof(outpost_event, idempotency_key) + sizeof(char*);

outpost_alarm alarm_defaults() {
    outpost_alarm alarm{};
    alarm.struct_size = sizeof alarm;
    alarm.severity = OUTPOST_SEVERITY_MAJOR;
    return alarm;
}

outpost_event event_defaults() {
    outpost_event event{};
    event.struct_size = sizeof event;
    return event;
}

}  // namespace

extern "C" {

void outpost_alarm_init_sized(outpost_alarm* alarm, size_t struct_size) {
    init_sized(alarm, struct_size, alarm_defaults());
}

void outpost_event_init_sized(outpost_event* event, size_t struct_size) {
    init_sized(event, struct_size, event_defaults());
}

outpost_code outpost_store_record_alarm(outpost_store* store, const outpost_alarm* caller_alarm,
                                        outpost_recorded* recorded, outpost_error* error) {
    if (recorded != nullptr) std::memset(recorded, 0, sizeof *recorded);
    return guarded(error, [&] {
        if (store == nullptr || caller_alarm == nullptr || recorded == nullptr) {
            return fail(error, OUTPOST_INVALID_ARGUMENT,
                        "outpost_store_record_alarm: store, alarm and recorded must not be NULL");
        }
        outpost_alarm given = alarm_defaults();
        if (read_sized(caller_alarm, kAlarmFirstSize, given, "outpost_store_record_alarm: alarm",
                       error) != OUTPOST_OK) {
            return OUTPOST_INVALID_ARGUMENT;
        }
        const outpost_alarm* alarm = &given;
        // C lets an outpost_severity hold any int, but in C++ loading a
        // value outside the enumerators' range through the enum type is
        // undefined behaviour (UBSan caught the test's 42): read the
        // field's bytes as its underlying integer and check that.
        std::underlying_type_t<outpost_severity> severity;
        static_assert(sizeof severity == sizeof alarm->severity, "outpost_severity layout");
        std::memcpy(&severity, &alarm->severity, sizeof severity);
        if (severity < OUTPOST_SEVERITY_INFO || severity > OUTPOST_SEVERITY_CRITICAL) {
            return fail(error, OUTPOST_INVALID_ARGUMENT,
                        "outpost_store_record_alarm: severity is not an outpost_severity value");
        }
        if (check_open(*store->shared, error) != OUTPOST_OK) return OUTPOST_CLOSED;
        Alarm record;
        record.device_id = text(alarm->device_id);
        record.alarm_type = text(alarm->alarm_type);
        if (alarm->event_type != nullptr && alarm->event_type[0] != '\0') {
            record.event_type = alarm->event_type;
        }
        record.severity = static_cast<Severity>(severity);
        if (alarm->has_value) record.value = alarm->value;
        record.unit = text(alarm->unit);
        record.text = text(alarm->text);
        record.idempotency_key = text(alarm->idempotency_key);
        auto event = store->shared->store->record_alarm(record);
        if (!event) return report(error, event.status());
        return copy_recorded(*event, recorded, error);
    });
}

outpost_code outpost_store_record_event(outpost_store* store, const outpost_event* caller_event,
                                        outpost_recorded* recorded, outpost_error* error) {
    if (recorded != nullptr) std::memset(recorded, 0, sizeof *recorded);
    return guarded(error, [&] {
        if (store == nullptr || caller_event == nullptr || recorded == nullptr) {
            return fail(error, OUTPOST_INVALID_ARGUMENT,
                        "outpost_store_record_event: store, event and recorded must not be NULL");
        }
        outpost_event given = event_defaults();
        if (read_sized(caller_event, kEventFirstSize, given, "outpost_store_record_event: event",
                       error) != OUTPOST_OK) {
            return OUTPOST_INVALID_ARGUMENT;
        }
        const outpost_event* event = &given;
        if (check_open(*store->shared, error) != OUTPOST_OK) return OUTPOST_CLOSED;
        Event record;
        record.event_type = text(event->event_type);
        record.device_id = text(event->device_id);
        record.aggregate_type = text(event->aggregate_type);
        record.aggregate_id = text(event->aggregate_id);
        record.payload_json = text(event->payload_json);
        record.idempotency_key = text(event->idempotency_key);
        auto events = store->shared->store->transact(
            [&](Transaction& transaction) { return transaction.enqueue(record).status(); });
        if (!events) return report(error, events.status());
        if (events->size() != 1) {
            return fail(error, OUTPOST_INTERNAL, "one enqueue did not return one event");
        }
        return copy_recorded(events->front(), recorded, error);
    });
}

}  // extern "C"
