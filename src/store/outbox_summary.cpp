#include "store/outbox_summary.h"

#include <algorithm>
#include <vector>

namespace outpost::store {
namespace {

// boot_log keeps this many ended boots; an older boot counts as "before all
// of them", which keeps every age a lower bound.
constexpr int64_t kBootsKept = 1000;

int64_t& count_of(OutboxChange& change, EventState state) {
    switch (state) {
        case EventState::kSent:
            return change.sent;
        case EventState::kDead:
            return change.dead;
        case EventState::kPending:
            break;
    }
    return change.pending;
}

void lower(int64_t& lowest, int64_t id) {
    lowest = lowest == 0 ? id : std::min(lowest, id);
}

}  // namespace

void OutboxChange::move(EventState from, EventState to, int64_t id) {
    if (from == to) return;
    --count_of(*this, from);
    ++count_of(*this, to);
    if (from == EventState::kPending) pending_left = true;
    if (to == EventState::kPending) lower(lowest_new_pending, id);
    rows_changed = true;
}

void OutboxChange::inserted(int64_t id) {
    ++pending;
    lower(lowest_new_pending, id);
}

void OutboxChange::deleted(EventState state, int64_t rows) {
    if (rows == 0) return;
    count_of(*this, state) -= rows;
    if (state == EventState::kPending) pending_left = true;
    rows_changed = true;
}

void OutboxChange::confirmations(int64_t rows) {
    if (rows == 0) return;
    confirmed += rows;
    rows_changed = true;
}

Result<OutboxSummary> read_summary(Db& db) {
    auto stmt = Stmt::prepare(db,
                              "SELECT pending, sent, dead, oldest_pending_id, through_id, boot_id,"
                              " uptime_ms, confirmed FROM outbox_summary WHERE id = 1");
    if (!stmt) return stmt.status();
    auto step = stmt->step("reading the outbox summary");
    if (!step) return step.status();
    if (*step != Stmt::Step::kRow) {
        return Status::error(StatusCode::kCorruption, "the outbox summary row is missing");
    }
    OutboxSummary summary;
    summary.tally = {stmt->column_int(0), stmt->column_int(1), stmt->column_int(2),
                     stmt->column_int(3), stmt->column_int(7)};
    summary.through_id = stmt->column_int(4);
    summary.boot_id = stmt->column_text(5);
    summary.uptime_ms = stmt->column_int(6);
    return summary;
}

Status write_summary(Db& db, const OutboxSummary& summary) {
    // Every state-change transaction writes it (S2): prepared once per
    // connection (Db::cached), not per call.
    auto stmt = db.cached(
        "UPDATE outbox_summary SET pending = ?1, sent = ?2, dead = ?3,"
        " oldest_pending_id = ?4, through_id = ?5, boot_id = ?6,"
        " uptime_ms = ?7, confirmed = ?8 WHERE id = 1");
    if (!stmt) return stmt.status();
    const OutboxTally& tally = summary.tally;
    (*stmt)->bind(1, tally.pending).bind(2, tally.sent).bind(3, tally.dead);
    (*stmt)->bind(4, tally.oldest_pending_id).bind(5, summary.through_id);
    (*stmt)->bind(6, summary.boot_id).bind(7, summary.uptime_ms).bind(8, tally.confirmed);
    return (*stmt)->run("writing the outbox summary");
}

Result<OutboxTally> derive_tally(Db& db, OutboxSummary* summary) {
    auto read = read_summary(db);
    if (!read) return read.status();
    *summary = *read;
    // S2: the rows past through_id are all PENDING; a rowid range, short by S3.
    auto tail =
        Stmt::prepare(db, "SELECT count(*), coalesce(min(id), 0) FROM outbox WHERE id > ?1");
    if (!tail) return tail.status();
    tail->bind(1, summary->through_id);
    auto step = tail->step("counting the outbox rows past the summary");
    if (!step) return step.status();
    OutboxTally tally = summary->tally;
    const int64_t tail_rows = tail->column_int(0);
    tally.pending += tail_rows;
    if (tally.oldest_pending_id == 0 && tail_rows > 0)
        tally.oldest_pending_id = tail->column_int(1);
    return tally;
}

Result<OutboxTally> apply_change(Db& db, const OutboxTally& before, const OutboxChange& change) {
    OutboxTally after = before;
    after.pending += change.pending;
    after.sent += change.sent;
    after.dead += change.dead;
    after.confirmed += change.confirmed;
    if (after.pending == 0) {
        after.oldest_pending_id = 0;
        return after;
    }
    int64_t oldest = before.oldest_pending_id;
    if (oldest != 0 && change.pending_left) {
        // No PENDING row lies below the old lowest (S1), so the walk starts
        // there and stops at the first PENDING row.
        static const std::string kOldestPending =
            "SELECT id FROM outbox WHERE id >= ?1 AND state = " +
            std::to_string(static_cast<int>(EventState::kPending)) + " ORDER BY id LIMIT 1";
        auto stmt = db.cached(kOldestPending.c_str());  // every SENT mark's batch
        if (!stmt) return stmt.status();
        (*stmt)->bind(1, oldest);
        auto step = (*stmt)->step("finding the oldest pending event");
        if (!step) return step.status();
        oldest = *step == Stmt::Step::kRow ? (*stmt)->column_int(0) : 0;
        (*stmt)->reset();  // no read snapshot held past COMMIT
    }
    if (change.lowest_new_pending != 0) lower(oldest, change.lowest_new_pending);
    after.oldest_pending_id = oldest;
    return after;
}

Result<int64_t> pending_age_at_least_ms(Db& db, int64_t id, const std::string& boot_id,
                                        int64_t uptime_ms) {
    // Alarms keep their clocks in alarm_record; application events in their
    // stored envelope.
    auto row = Stmt::prepare(db,
                             "SELECT coalesce(a.boot_id, json_extract(o.envelope, '$.bootId')),"
                             " coalesce(a.uptime_ms, json_extract(o.envelope, '$.uptimeMs'))"
                             " FROM outbox o LEFT JOIN alarm_record a ON a.id = o.id"
                             " WHERE o.id = ?1");
    if (!row) return row.status();
    row->bind(1, id);
    auto step = row->step("reading when the oldest pending event was recorded");
    if (!step) return step.status();
    if (*step != Stmt::Step::kRow) return int64_t{-1};
    const std::string recorded_boot = row->column_text(0);
    const int64_t recorded_uptime = row->column_int(1);
    if (recorded_boot == boot_id) return std::max<int64_t>(0, uptime_ms - recorded_uptime);

    // Ended boots in order, then the summary's boot if it is not this one.
    std::vector<std::pair<std::string, int64_t>> boots;
    auto log = Stmt::prepare(db, "SELECT boot_id, last_uptime_ms FROM boot_log ORDER BY seq");
    if (!log) return log.status();
    Status read = log->for_each_row("reading the boot log", [&](const Stmt& boot) {
        boots.emplace_back(boot.column_text(0), boot.column_int(1));
    });
    if (!read) return read;
    auto summary = read_summary(db);
    if (!summary) return summary.status();
    if (!summary->boot_id.empty() && summary->boot_id != boot_id) {
        boots.emplace_back(summary->boot_id, summary->uptime_ms);
    }
    // A boot missing from the log ended before every boot in it.
    size_t first_later = 0;
    int64_t age = uptime_ms;
    for (size_t i = boots.size(); i-- > 0;) {
        if (boots[i].first == recorded_boot) {
            age += std::max<int64_t>(0, boots[i].second - recorded_uptime);
            first_later = i + 1;
            break;
        }
    }
    for (size_t i = first_later; i < boots.size(); ++i) age += boots[i].second;
    return age;
}

Status note_boot(Db& db, const std::string& boot_id, int64_t uptime_ms) {
    auto seen = read_summary(db);
    if (!seen) return seen.status();
    if (seen->boot_id == boot_id) return Status::ok();  // the usual case: no write
    // IMMEDIATE: another process opening in the same new boot must not log
    // the old boot twice; read again under the write lock.
    Status status = db.exec("BEGIN IMMEDIATE", "recording a new boot");
    if (!status) return status;
    auto summary = read_summary(db);
    status = summary.status();
    if (status && summary->boot_id != boot_id) {
        if (!summary->boot_id.empty()) {
            auto log =
                Stmt::prepare(db, "INSERT INTO boot_log (boot_id, last_uptime_ms) VALUES (?1, ?2)");
            status = log.status();
            if (status)
                status = log->bind(1, summary->boot_id)
                             .bind(2, summary->uptime_ms)
                             .run("logging the last boot");
            if (status) {
                status =
                    db.exec("DELETE FROM boot_log WHERE seq <= (SELECT max(seq) FROM boot_log) - " +
                                std::to_string(kBootsKept),
                            "pruning the boot log");
            }
        }
        if (status) {
            summary->boot_id = boot_id;
            summary->uptime_ms = uptime_ms;
            status = write_summary(db, *summary);
        }
    }
    // Durable like any commit (synchronous=FULL): a lost boot_log entry
    // would only make an age smaller, never larger.
    if (status) return db.exec("COMMIT", "recording a new boot");
    db.exec("ROLLBACK", "recording a new boot").ignore_error("closing the writer ends it too");
    return status;
}

}  // namespace outpost::store
