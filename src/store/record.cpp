#include "store/record.h"

#include "common/uuid.h"
#include "store/envelope.h"

namespace outpost::store {
namespace {

// Looks up an earlier event with the same idempotency key. Returns true and
// fills `out` when one exists.
Result<bool> find_by_key(StoreCore& core, const std::string& key, RecordedEvent* out) {
    if (key.empty()) return false;
    auto stmt = core.cached("SELECT event_id, device_id, seq FROM outbox WHERE idempotency_key = ?1");
    if (!stmt) return stmt.status();
    (*stmt)->bind(1, key);
    auto step = (*stmt)->step("looking up idempotency key");
    if (!step) return step.status();
    if (*step == Stmt::Step::kDone) return false;
    out->event_id = (*stmt)->column_text(0);
    out->device_id = (*stmt)->column_text(1);
    out->seq = (*stmt)->column_int(2);
    out->duplicate = true;
    (*stmt)->reset();
    return true;
}

EnvelopeContext make_context(BatchContext& context, const std::string& device_id) {
    EnvelopeContext envelope;
    envelope.event_id = make_uuid_v7(context.wall_ms());
    envelope.gateway_id = context.core().gateway_id();
    envelope.seq = context.next_seq(device_id);
    envelope.wall_ms = context.wall_ms();
    envelope.boot_id = context.core().boot_id();
    envelope.uptime_ms = context.uptime_ms();
    return envelope;
}

// `body` is the envelope to store, or nullptr for alarms (rebuilt on read).
Result<int64_t> insert_outbox_row(BatchContext& context, const EnvelopeContext& envelope,
                                  const std::string& idempotency_key, const std::string& device_id,
                                  const std::string& event_type, const std::string& topic_suffix,
                                  const std::string* body) {
    if (body != nullptr && body->size() > context.core().options().max_event_bytes) {
        return Status::error(StatusCode::kInvalidArgument,
                             "event envelope is " + std::to_string(body->size()) +
                                 " bytes; max_event_bytes is " +
                                 std::to_string(context.core().options().max_event_bytes));
    }
    auto stmt = context.core().cached(
        "INSERT INTO outbox (event_id, idempotency_key, device_id, seq, event_type, topic_suffix,"
        " envelope) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
    if (!stmt) return stmt.status();
    // Every string bound lives until run() returns (bind_static).
    (*stmt)->bind_static(1, envelope.event_id);
    if (idempotency_key.empty()) {
        (*stmt)->bind_null(2);
    } else {
        (*stmt)->bind_static(2, idempotency_key);
    }
    (*stmt)->bind_static(3, device_id).bind(4, envelope.seq);
    (*stmt)->bind_static(5, event_type).bind_static(6, topic_suffix);
    if (body == nullptr) {
        (*stmt)->bind_null(7);
    } else {
        (*stmt)->bind_static(7, *body);
    }
    Status status = (*stmt)->run("inserting outbox row");
    (*stmt)->reset();  // drops the borrowed strings
    if (!status) return status;
    int64_t id = sqlite3_last_insert_rowid(context.db().handle());
    context.note_outbox_insert(id);
    return id;
}

RecordedEvent recorded_from(const EnvelopeContext& envelope, const std::string& device_id) {
    RecordedEvent recorded;
    recorded.event_id = envelope.event_id;
    recorded.device_id = device_id;
    recorded.seq = envelope.seq;
    recorded.duplicate = false;
    return recorded;
}

}  // namespace

Status check_alarm_size(StoreCore& core, const Alarm& alarm) {
    // A trial envelope with the widest possible id, sequence and clock values
    // bounds the real one.
    auto widest = [&core] {
        EnvelopeContext context;
        context.event_id = std::string(36, 'f');
        context.gateway_id = core.gateway_id();
        context.seq = INT64_MAX;
        context.wall_ms = 253402300799999;  // 9999-12-31T23:59:59.999Z
        context.boot_id = core.boot_id();
        context.uptime_ms = INT64_MAX;
        return context;
    };
    const uint64_t limit = core.options().max_event_bytes;
    const size_t skeleton = core.alarm_skeleton_bytes([&] {
        return alarm_envelope_skeleton_bytes(widest());
    });
    if (alarm_envelope_bound(alarm, skeleton) <= limit) return Status::ok();
    const size_t size = alarm_envelope(alarm, widest()).size();
    if (size <= limit) return Status::ok();
    return Status::error(StatusCode::kInvalidArgument,
                         "alarm envelope would be " + std::to_string(size) +
                             " bytes; max_event_bytes is " + std::to_string(limit));
}

uint64_t estimated_alarm_bytes(const Alarm& alarm) {
    // The fields in alarm_record, the event's row in outbox, B-tree overhead.
    return 400 + alarm.text.size() + alarm.unit.size() + 2 * alarm.alarm_type.size() +
           2 * alarm.idempotency_key.size();
}

Status insert_alarm(BatchContext& context, const Alarm& alarm, RecordedEvent* out) {
    auto existing = find_by_key(context.core(), alarm.idempotency_key, out);
    if (!existing) return existing.status();
    if (*existing) return Status::ok();

    EnvelopeContext envelope = make_context(context, alarm.device_id);
    auto id = insert_outbox_row(context, envelope, alarm.idempotency_key, alarm.device_id,
                                alarm.event_type, "alarm/" + alarm.device_id, nullptr);
    if (!id) return id.status();

    // Same rowid as the event: the pair is found from either side and purged
    // together.
    auto stmt = context.core().cached(
        "INSERT INTO alarm_record (id, event_id, device_id, alarm_type, event_type, severity,"
        " value, unit, text, occurred_at_ms, boot_id, uptime_ms)"
        " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)");
    if (!stmt) return stmt.status();
    Stmt& insert = **stmt;
    // Every string bound lives until run() returns (bind_static).
    const std::string severity = severity_name(alarm.severity);
    insert.bind(1, *id).bind_static(2, envelope.event_id).bind_static(3, alarm.device_id);
    insert.bind_static(4, alarm.alarm_type).bind_static(5, alarm.event_type);
    insert.bind_static(6, severity);
    if (alarm.value) {
        insert.bind(7, *alarm.value);
    } else {
        insert.bind_null(7);
    }
    insert.bind_static(8, alarm.unit).bind_static(9, alarm.text).bind(10, envelope.wall_ms);
    insert.bind_static(11, envelope.boot_id).bind(12, envelope.uptime_ms);
    Status status = insert.run("inserting alarm record");
    insert.reset();  // drops the borrowed strings
    if (!status) return status;

    *out = recorded_from(envelope, alarm.device_id);
    return Status::ok();
}

Status insert_event(BatchContext& context, const Event& event, RecordedEvent* out) {
    auto existing = find_by_key(context.core(), event.idempotency_key, out);
    if (!existing) return existing.status();
    if (*existing) return Status::ok();
    EnvelopeContext envelope = make_context(context, event.device_id);
    const std::string body = event_envelope(event, envelope);
    auto id = insert_outbox_row(context, envelope, event.idempotency_key, event.device_id,
                                event.event_type, "event/" + event.device_id, &body);
    if (!id) return id.status();
    *out = recorded_from(envelope, event.device_id);
    return Status::ok();
}

}  // namespace outpost::store
