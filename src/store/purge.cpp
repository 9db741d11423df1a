#include "store/purge.h"

#include <string>

#include "common/fault_point.h"
#include "store/outbox.h"

namespace outpost::store {
namespace {

// The rows to purge, as a subquery: ?1 expired_only, ?2 boot id, ?3 uptime
// now, ?4 retention, ?5 limit, ?6 confirmed_only (receipts on: a SENT row
// without its receipt may still be published again, so it stays). Only the first 4 x limit SENT
// rows in id order are looked at: rows are marked SENT roughly in id order, so those expire first,
// and a retention purge that finds nothing expired (every purge_interval, on a store full of fresh
// SENT rows) must not walk the whole table to say so.
const std::string& victims_sql() {
    static const std::string kVictims =
        "SELECT id FROM (SELECT id, sent_boot_id, sent_uptime_ms FROM outbox WHERE state = " +
        sql_literal(OutboxState::kSent) +
        " AND (?6 = 0 OR confirmed IS NOT NULL)"
        " AND id < (SELECT max(id) FROM outbox) ORDER BY id LIMIT ?5 * 4)"
        " WHERE ?1 = 0"
        "      OR (sent_boot_id = ?2 AND ?3 - sent_uptime_ms >= ?4)"
        "      OR (sent_boot_id IS NOT ?2 AND ?3 >= ?4)"
        " ORDER BY id LIMIT ?5";
    return kVictims;
}

void bind_rule(Stmt& stmt, const PurgeRule& rule, int64_t limit) {
    stmt.bind(1, static_cast<int64_t>(rule.expired_only ? 1 : 0))
        .bind(2, rule.boot_id)
        .bind(3, rule.uptime_ms)
        .bind(4, static_cast<int64_t>(rule.retention.count()))
        .bind(5, limit)
        .bind(6, static_cast<int64_t>(rule.confirmed_only ? 1 : 0));
}

}  // namespace

std::string remember_seqs_sql(const std::string& rows) {
    return "INSERT INTO device_seq (device_id, last_seq) SELECT device_id, max(seq) FROM " + rows +
           " GROUP BY device_id"
           " ON CONFLICT (device_id) DO UPDATE SET last_seq = max(last_seq, excluded.last_seq)";
}

Result<int64_t> purge_sent_rows(StoreCore& core, const PurgeRule& rule, int64_t limit,
                                OutboxChange& change) {
    const std::string& victims = victims_sql();
    // 1. Remember the highest seq per device before its rows go.
    auto remember = core.cached(remember_seqs_sql("outbox WHERE id IN (" + victims + ")"));
    if (!remember) return remember.status();
    bind_rule(**remember, rule, limit);
    Status status = (*remember)->run("recording purged sequence numbers");
    if (!status) return status;
    // 2. The business rows of purged alarm events (same id as their event).
    auto alarms = core.cached("DELETE FROM alarm_record WHERE id IN (" + victims + ")");
    if (!alarms) return alarms.status();
    bind_rule(**alarms, rule, limit);
    status = (*alarms)->run("purging alarm records");
    if (!status) return status;
    OUTPOST_FAULT_POINT("store.mid_purge");
    // 3. The events themselves, counting the confirmed ones (S1).
    auto events = core.cached("DELETE FROM outbox WHERE id IN (" + victims +
                              ") RETURNING confirmed IS NOT NULL");
    if (!events) return events.status();
    bind_rule(**events, rule, limit);
    int64_t deleted = 0;
    int64_t confirmed = 0;
    for (;;) {
        auto step = (*events)->step("purging SENT events");
        if (!step) return step.status();
        if (*step == Stmt::Step::kDone) break;
        ++deleted;
        confirmed += (*events)->column_int(0);
    }
    (*events)->reset();
    change.deleted(OutboxState::kSent, deleted);
    change.confirmations(-confirmed);
    return deleted;
}

}  // namespace outpost::store
