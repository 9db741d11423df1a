#include "store/outbox.h"

#include <algorithm>
#include <utility>

#include <nlohmann/json.hpp>

#include "common/fault_point.h"
#include "store/envelope.h"
#include "store/purge.h"

namespace outpost::store {
namespace {

// Outbox columns, then the alarm_record columns an alarm envelope is rebuilt
// from (NULL for application events, whose envelope is stored), then the
// replay time and actor, then whether a receipt confirmed it, then the last
// failure's time and the earlier failures (schema/005_failure_history.sql).
constexpr const char* kRowColumns =
    "o.id, o.event_id, o.device_id, o.seq, o.event_type, o.topic_suffix, o.envelope, o.state,"
    " o.attempts, coalesce(o.last_error, ''), o.replay_count, coalesce(o.replay_reason, ''),"
    " a.id, a.alarm_type, a.severity, a.value, a.unit, a.text, a.occurred_at_ms, a.boot_id,"
    " a.uptime_ms, (SELECT value FROM meta WHERE key = 'gateway_id'),"
    " coalesce(o.replayed_at_ms, 0), coalesce(o.replay_actor, ''), o.confirmed IS NOT NULL,"
    " coalesce(o.failed_at_ms, 0), coalesce(o.failure_history, '')";
constexpr const char* kRowSource = " FROM outbox o LEFT JOIN alarm_record a ON a.id = o.id";

// The alarm envelope, rebuilt from the stored fields exactly as
// insert_alarm built it at commit (envelope.h: same inputs, same bytes).
std::string rebuild_alarm_envelope(const Stmt& stmt) {
    Alarm alarm;
    alarm.device_id = stmt.column_text(2);
    alarm.event_type = stmt.column_text(4);
    alarm.alarm_type = stmt.column_text(13);
    alarm.severity = parse_severity(stmt.column_text(14)).value_or(Severity::kMajor);
    if (!stmt.column_is_null(15)) alarm.value = stmt.column_double(15);
    alarm.unit = stmt.column_text(16);
    alarm.text = stmt.column_text(17);
    EnvelopeContext context;
    context.event_id = stmt.column_text(1);
    context.gateway_id = stmt.column_text(21);
    context.seq = stmt.column_int(3);
    context.wall_ms = stmt.column_int(18);
    context.boot_id = stmt.column_text(19);
    context.uptime_ms = stmt.column_int(20);
    return alarm_envelope(alarm, context);
}

// The failure_history column as written by replays (kAppendFailure); a
// value that does not parse reads as no history: it is for operators only.
std::vector<EarlierFailure> read_failure_history(const std::string& text) {
    std::vector<EarlierFailure> failures;
    if (text.empty()) return failures;
    const nlohmann::json history = nlohmann::json::parse(text, nullptr, false);
    if (!history.is_array()) return failures;
    for (const nlohmann::json& entry : history) {
        if (!entry.is_object()) continue;
        EarlierFailure failure;
        const auto integer = [&](const char* name) -> int64_t {
            const auto found = entry.find(name);
            return found != entry.end() && found->is_number_integer() ? found->get<int64_t>() : 0;
        };
        const auto text_of = [&](const char* name) -> std::string {
            const auto found = entry.find(name);
            return found != entry.end() && found->is_string() ? found->get<std::string>() : "";
        };
        failure.attempts = integer("attempts");
        failure.error = text_of("error");
        failure.failed_at_ms = integer("failed_at_ms");
        failure.replayed_at_ms = integer("replayed_at_ms");
        failure.reason = text_of("reason");
        failure.actor = text_of("actor");
        failures.push_back(std::move(failure));
    }
    return failures;
}

// failure_history with one entry appended for a replay (what it resets),
// the oldest dropped beyond EventRecord::kKeptFailures. `time`, `reason`
// and `actor` are the statement's parameters for the replay.
std::string append_failure_sql(const std::string& time, const std::string& reason,
                               const std::string& actor) {
    const std::string history = "coalesce(failure_history, '[]')";
    const std::string entry = "json_object('attempts', attempts, 'error', coalesce(last_error, ''),"
                              " 'failed_at_ms', failed_at_ms, 'replayed_at_ms', " +
                              time + ", 'reason', " + reason + ", 'actor', " + actor + ")";
    const std::string appended = "json_insert(" + history + ", '$[#]', " + entry + ")";
    return "CASE WHEN json_array_length(" + history +
           ") >= " + std::to_string(EventRecord::kKeptFailures) + " THEN json_remove(" +
           appended + ", '$[0]') ELSE " + appended + " END";
}

OutboxRow read_row(const Stmt& stmt) {
    OutboxRow row;
    row.id = stmt.column_int(0);
    row.event_id = stmt.column_text(1);
    row.device_id = stmt.column_text(2);
    row.seq = stmt.column_int(3);
    row.event_type = stmt.column_text(4);
    row.topic_suffix = stmt.column_text(5);
    row.envelope = stmt.column_is_null(6) && !stmt.column_is_null(12) ? rebuild_alarm_envelope(stmt)
                                                                      : stmt.column_text(6);
    row.state = static_cast<OutboxState>(stmt.column_int(7));
    row.attempts = stmt.column_int(8);
    row.last_error = stmt.column_text(9);
    row.replay_count = stmt.column_int(10);
    row.replay_reason = stmt.column_text(11);
    row.replayed_at_ms = stmt.column_int(22);
    row.replay_actor = stmt.column_text(23);
    row.confirmed = stmt.column_int(24) != 0;
    row.failed_at_ms = stmt.column_int(25);
    row.earlier_failures = read_failure_history(stmt.column_text(26));
    return row;
}

Result<std::vector<OutboxRow>> read_rows(Stmt& stmt, const std::string& what) {
    std::vector<OutboxRow> rows;
    for (;;) {
        auto step = stmt.step(what);
        if (!step) return step.status();
        if (*step == Stmt::Step::kDone) return rows;
        rows.push_back(read_row(stmt));
    }
}

// Inside a batch: fails with kFenced unless `epoch` is the lease's epoch.
Status check_epoch(StoreCore& core, int64_t epoch) {
    auto stmt = core.cached("SELECT epoch FROM lease WHERE id = 1");
    if (!stmt) return stmt.status();
    auto step = (*stmt)->step("reading lease epoch");
    if (!step) return step.status();
    int64_t current = *step == Stmt::Step::kRow ? (*stmt)->column_int(0) : -1;
    (*stmt)->reset();
    if (current != epoch) {
        return Status::error(StatusCode::kFenced, "lease epoch " + std::to_string(epoch) +
                                                      " was superseded by " +
                                                      std::to_string(current) +
                                                      ": another publisher owns " + core.path());
    }
    return Status::ok();
}

// Runs `apply` as an isolated op of the group-commit queue.
Status submit_isolated(StoreCore& core, std::function<Status(BatchContext&)> apply,
                       Durability durability = Durability::kSynced) {
    WriteOp op;
    op.isolated = true;
    op.durability = durability;
    op.apply = std::move(apply);
    return core.submit(op);
}

// A run of consecutive row ids, first..last inclusive.
struct IdRun {
    int64_t first = 0;
    int64_t last = 0;
};

// `ids` sorted, repeats dropped, as runs of consecutive ids.
std::vector<IdRun> consecutive_runs(std::vector<int64_t> ids) {
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    std::vector<IdRun> runs;
    for (int64_t id : ids) {
        if (!runs.empty() && runs.back().last + 1 == id) {
            runs.back().last = id;
        } else {
            runs.push_back(IdRun{id, id});
        }
    }
    return runs;
}

// What a SENT mark adds to its row: the sent boot id (36 characters and its
// header byte), the uptime (up to 8 bytes), a wider epoch, rounded up. A full
// store's marks must make room for it (quota.cpp): the page limit's headroom
// is 1/8 of the quota, and marking every row of a store filled with small
// events lengthens them by far more than that
// (tests/unit/store/full_store_drain_test.cpp).
constexpr uint64_t kSentMarkGrowthBytes = 64;

}  // namespace

std::string sql_literal(OutboxState state) {
    return std::to_string(static_cast<int>(state));
}

Result<std::vector<OutboxRow>> fetch_pending(Db& reader, int64_t after_id, int limit) {
    return list_events(reader, OutboxState::kPending, after_id, limit);
}

Result<std::vector<OutboxRow>> list_events(Db& reader, OutboxState state, int64_t after_id,
                                           int limit) {
    // Prepared once per connection (Db::cached): the publisher's fetch
    // runs every 256 rows of a drain.
    static const std::string kListSql = std::string("SELECT ") + kRowColumns + kRowSource +
                                        " WHERE o.id > ?1 AND o.state = ?2"
                                        " ORDER BY o.id LIMIT ?3";
    auto stmt = reader.cached(kListSql.c_str());
    if (!stmt) return stmt.status();
    (*stmt)->bind(1, after_id).bind(2, static_cast<int64_t>(state));
    (*stmt)->bind(3, static_cast<int64_t>(limit));
    auto rows = read_rows(**stmt, "reading outbox rows");
    (*stmt)->reset();  // ends the read: no snapshot kept between fetches
    return rows;
}

Result<std::vector<UnconfirmedRow>> fetch_unconfirmed(Db& reader, int64_t after_id, int limit) {
    auto stmt = Stmt::prepare(reader, "SELECT id, event_id FROM outbox WHERE id > ?1 AND state = " +
                                          sql_literal(OutboxState::kSent) +
                                          " AND confirmed IS NULL ORDER BY id LIMIT ?2");
    if (!stmt) return stmt.status();
    stmt->bind(1, after_id).bind(2, static_cast<int64_t>(limit));
    std::vector<UnconfirmedRow> rows;
    Status status = stmt->for_each_row("reading unconfirmed outbox rows", [&](const Stmt& row) {
        rows.push_back(UnconfirmedRow{row.column_int(0), row.column_text(1)});
    });
    if (!status) return status;
    return rows;
}

namespace {

// The event id lookup's statements. find_event_id prepares them per call
// (operator reads); confirm_events takes them from the writer's cache and
// reads the two bounds once per receipt, not once per id: preparing four
// statements per id made the outpost-mark thread spend most of its time in
// SQLite's parser while it confirmed receipts (perf, bench/publish_bench).
constexpr const char* kOrderedAfterSql =
    "SELECT CAST(coalesce((SELECT value FROM meta WHERE key = 'event_ids_ordered_after'),"
    " 0) AS INTEGER)";
constexpr const char* kNewestIdSql = "SELECT coalesce(max(id), 0) FROM outbox";
constexpr const char* kProbeSql =
    "SELECT id, event_id FROM outbox WHERE id >= ?1 ORDER BY id LIMIT 1";
constexpr const char* kLegacySql = "SELECT id FROM outbox WHERE id <= ?1 AND event_id = ?2";

// Where ordered ids start and the newest id: the bisection's bounds.
struct LookupBounds {
    int64_t ordered_after = 0;
    int64_t newest = 0;
};

Result<int64_t> first_int(Stmt& stmt, const std::string& what) {
    auto step = stmt.step(what);
    if (!step) return step.status();
    if (*step != Stmt::Step::kRow) {
        return Status::error(StatusCode::kInternal, what + ": no row returned");
    }
    const int64_t value = stmt.column_int(0);
    stmt.reset();
    return value;
}

Result<LookupBounds> lookup_bounds(Stmt& ordered_after, Stmt& newest) {
    LookupBounds bounds;
    auto after = first_int(ordered_after, "reading where ordered event ids start");
    if (!after) return after.status();
    auto max_id = first_int(newest, "reading the newest id");
    if (!max_id) return max_id.status();
    bounds.ordered_after = *after;
    bounds.newest = *max_id;
    return bounds;
}

// The row `hint` if it holds `event_id`; kNotFound otherwise (one B-tree
// descent, no bisection).
Result<int64_t> find_at_hint(Stmt& probe, int64_t hint, const std::string& event_id) {
    probe.reset();
    probe.bind(1, hint);
    auto step = probe.step("looking up an event at its row");
    if (!step) return step.status();
    const bool found = *step == Stmt::Step::kRow && probe.column_int(0) == hint &&
                       probe.column_text(1) == event_id;
    probe.reset();
    if (found) return hint;
    return Status::error(StatusCode::kNotFound, "event " + event_id + " is not at its hint");
}

Result<int64_t> find_in(Stmt& probe, Stmt& legacy, const LookupBounds& bounds,
                        const std::string& event_id) {
    // Ids made since schema 3 grow with the rowid (outbox_state.cpp seeds
    // the generator): bisect the rowids above the ordered-after mark, each
    // probe one B-tree descent to the first row at or above the midpoint.
    int64_t low = bounds.ordered_after + 1;
    int64_t high = bounds.newest;
    while (low <= high) {
        const int64_t middle = low + (high - low) / 2;
        probe.reset();
        probe.bind(1, middle);
        auto step = probe.step("looking up event " + event_id);
        if (!step) return step.status();
        if (*step != Stmt::Step::kRow || probe.column_int(0) > high) {
            high = middle - 1;  // no row in [middle, high]
            continue;
        }
        const int64_t id = probe.column_int(0);
        const int order = probe.column_text(1).compare(event_id);
        if (order == 0) {
            probe.reset();
            return id;
        }
        if (order < 0) {
            low = id + 1;
        } else {
            high = middle - 1;
        }
    }
    probe.reset();
    // Ids made before schema 3 may be in any order: a scan bounded by the
    // mark, empty on a store created since.
    legacy.reset();
    legacy.bind(1, bounds.ordered_after).bind(2, event_id);
    auto step = legacy.step("looking up event " + event_id);
    if (!step) return step.status();
    const bool found = *step == Stmt::Step::kRow;
    const int64_t id = found ? legacy.column_int(0) : 0;
    legacy.reset();
    if (found) return id;
    return Status::error(StatusCode::kNotFound, "no event " + event_id + " in the outbox");
}

}  // namespace

Result<int64_t> find_event_id(Db& db, const std::string& event_id) {
    auto ordered_after = Stmt::prepare(db, kOrderedAfterSql);
    if (!ordered_after) return ordered_after.status();
    auto newest = Stmt::prepare(db, kNewestIdSql);
    if (!newest) return newest.status();
    auto probe = Stmt::prepare(db, kProbeSql);
    if (!probe) return probe.status();
    auto legacy = Stmt::prepare(db, kLegacySql);
    if (!legacy) return legacy.status();
    auto bounds = lookup_bounds(*ordered_after, *newest);
    if (!bounds) return bounds.status();
    return find_in(*probe, *legacy, *bounds, event_id);
}

Result<OutboxRow> find_event(Db& reader, const std::string& event_id) {
    auto id = find_event_id(reader, event_id);
    if (!id) return id.status();
    auto stmt = Stmt::prepare(
        reader, std::string("SELECT ") + kRowColumns + kRowSource + " WHERE o.id = ?1");
    if (!stmt) return stmt.status();
    stmt->bind(1, *id);
    auto rows = read_rows(*stmt, "reading event " + event_id);
    if (!rows) return rows.status();
    if (rows->empty()) {
        return Status::error(StatusCode::kNotFound, "no event " + event_id + " in the outbox");
    }
    return rows->front();
}

Result<LeaseRecord> read_lease(Db& reader) {
    auto stmt = Stmt::prepare(
        reader,
        "SELECT epoch, coalesce(holder, ''), coalesce(boot_id, '') FROM lease WHERE id = 1");
    if (!stmt) return stmt.status();
    auto step = stmt->step("reading the lease");
    if (!step) return step.status();
    if (*step != Stmt::Step::kRow) {
        return Status::error(StatusCode::kCorruption, "lease row is missing");
    }
    LeaseRecord lease;
    lease.epoch = stmt->column_int(0);
    lease.holder = stmt->column_text(1);
    lease.boot_id = stmt->column_text(2);
    return lease;
}

Result<int64_t> acquire_epoch(StoreCore& core, const std::string& holder) {
    int64_t epoch = 0;
    Status status = submit_isolated(core, [&](BatchContext& context) {
        auto stmt = core.cached(
            "UPDATE lease SET epoch = epoch + 1, holder = ?1, boot_id = ?2,"
            " acquired_uptime_ms = ?3 WHERE id = 1 RETURNING epoch");
        if (!stmt) return stmt.status();
        (*stmt)->bind(1, holder).bind(2, core.boot_id()).bind(3, context.uptime_ms());
        auto step = (*stmt)->step("acquiring lease epoch");
        if (!step) return step.status();
        if (*step != Stmt::Step::kRow) {
            return Status::error(StatusCode::kCorruption, "lease row is missing");
        }
        epoch = (*stmt)->column_int(0);
        (*stmt)->reset();
        return Status::ok();
    });
    if (!status) return status;
    return epoch;
}

Status mark_sent(StoreCore& core, const std::vector<int64_t>& ids, int64_t epoch) {
    if (ids.empty()) return Status::ok();
    // One UPDATE per run of consecutive ids, not one per id: a drain's
    // PUBACKs come in publish order, so a batch is one or two runs. Each
    // run holds exactly ids of `ids` (P2: only rows with their own PUBACK).
    const std::vector<IdRun> runs = consecutive_runs(ids);
    WriteOp op;
    op.isolated = true;
    op.growth_bytes = kSentMarkGrowthBytes * ids.size();
    op.refused_when_full = false;  // marks are how a full store drains
    // A mark undone by a power cut only publishes the row again (I8).
    op.durability = Durability::kLazy;
    op.apply = [&](BatchContext& context) {
        Status status = check_epoch(core, epoch);
        if (!status) return status;
        static const std::string kMarkSent =
            "UPDATE outbox SET state = " + sql_literal(OutboxState::kSent) +
            ", epoch = ?1, sent_boot_id = ?2, sent_uptime_ms = ?3"
            " WHERE id BETWEEN ?4 AND ?5 AND state = " +
            sql_literal(OutboxState::kPending) + " RETURNING id";
        auto stmt = core.cached(kMarkSent);
        if (!stmt) return stmt.status();
        for (const IdRun& run : runs) {
            (*stmt)->reset();
            (*stmt)->bind(1, epoch).bind_static(2, core.boot_id()).bind(3, context.uptime_ms());
            (*stmt)->bind(4, run.first).bind(5, run.last);
            status = (*stmt)->for_each_row("marking events SENT", [&](const Stmt& row) {
                context.change().move(OutboxState::kPending, OutboxState::kSent, row.column_int(0));
            });
            if (!status) return status;
            OUTPOST_FAULT_POINT("store.mid_mark");
        }
        return Status::ok();
    };
    return core.submit(op);
}

namespace {

// The writer's cached statements one confirmation uses, and the bisection's
// bounds, read once per transaction.
struct ConfirmStatements {
    Stmt* confirm = nullptr;
    Stmt* is_confirmed = nullptr;
    Stmt* reject = nullptr;
    Stmt* probe = nullptr;
    Stmt* legacy = nullptr;
    LookupBounds bounds;
};

Result<ConfirmStatements> confirm_statements(StoreCore& core) {
    // Only SENT -> confirmed: a receipt never moves a row backwards, and
    // a PENDING or DEAD row (replayed, or not yet marked) is left alone.
    static const std::string kConfirm =
        "UPDATE outbox SET confirmed = 1 WHERE id = ?1 AND state = " +
        sql_literal(OutboxState::kSent) + " AND confirmed IS NULL";
    static const std::string kIsConfirmed =
        "SELECT 1 FROM outbox WHERE id = ?1 AND confirmed IS NOT NULL";
    auto confirm = core.cached(kConfirm);
    if (!confirm) return confirm.status();
    auto is_confirmed = core.cached(kIsConfirmed);
    if (!is_confirmed) return is_confirmed.status();
    // A negative receipt: only SENT rows no receipt confirmed turn DEAD; a
    // confirmation outranks it (RocketMQ holds the event), and a PENDING
    // row was replayed since and is on its way again.
    static const std::string kReject =
        "UPDATE outbox SET state = " + sql_literal(OutboxState::kDead) +
        ", attempts = attempts + 1, last_error = ?2, epoch = ?3, failed_at_ms = ?4"
        " WHERE id = ?1 AND state = " +
        sql_literal(OutboxState::kSent) +
        " AND confirmed IS NULL RETURNING event_id, device_id, seq, attempts";
    auto reject = core.cached(kReject);
    if (!reject) return reject.status();
    auto ordered_after = core.cached(kOrderedAfterSql);
    if (!ordered_after) return ordered_after.status();
    auto newest = core.cached(kNewestIdSql);
    if (!newest) return newest.status();
    auto probe = core.cached(kProbeSql);
    if (!probe) return probe.status();
    auto legacy = core.cached(kLegacySql);
    if (!legacy) return legacy.status();
    // Nothing inserts inside this op: the bounds hold for every id.
    auto bounds = lookup_bounds(**ordered_after, **newest);
    if (!bounds) return bounds.status();
    return ConfirmStatements{*confirm, *is_confirmed, *reject, *probe, *legacy, *bounds};
}

// The row of `event_id` in this store: at `hint` (the row id the receipt
// carries back) when that row holds it, else by bisection. kNotFound: not
// this store's event.
Result<int64_t> locate_event(ConfirmStatements& statements, int64_t hint,
                             const std::string& event_id) {
    if (hint > 0) {
        auto at_hint = find_at_hint(*statements.probe, hint, event_id);
        if (at_hint || at_hint.status().code() != StatusCode::kNotFound) return at_hint;
    }
    return find_in(*statements.probe, *statements.legacy, statements.bounds, event_id);
}

// Confirms one receipt's ids inside the open transaction; `counts` says
// what happened to each.
Status confirm_receipt(StoreCore& core, ConfirmStatements& statements, const ReceiptIds& receipt,
                       ConfirmCounts& counts) {
    const std::vector<std::string>& event_ids = receipt.event_ids;
    for (size_t i = 0; i < event_ids.size(); ++i) {
        const std::string& event_id = event_ids[i];
        // This store's rows only: an id of another gateway is not here.
        const int64_t hint = i < receipt.row_hints.size() ? receipt.row_hints[i] : 0;
        auto id = locate_event(statements, hint, event_id);
        if (!id && id.status().code() == StatusCode::kNotFound) {
            counts.unknown.push_back(event_id);
            continue;
        }
        if (!id) return id.status();
        Stmt& confirm = *statements.confirm;
        confirm.reset();
        confirm.bind(1, *id);
        Status run = confirm.run("confirming event " + event_id);
        if (!run) return run;
        if (sqlite3_changes(core.writer().handle()) > 0) {
            counts.confirmed.push_back(event_id);
            continue;
        }
        Stmt& is_confirmed = *statements.is_confirmed;
        is_confirmed.reset();
        is_confirmed.bind(1, *id);
        auto step = is_confirmed.step("reading whether " + event_id + " is confirmed");
        if (!step) return step.status();
        const bool already = *step == Stmt::Step::kRow;
        is_confirmed.reset();
        (already ? counts.already_confirmed : counts.not_sent).push_back(event_id);
    }
    return Status::ok();
}

// Applies one receipt's rejections inside the open transaction; the rows
// that turned DEAD go to `counts.dead` and `change`.
Status reject_receipt(ConfirmStatements& statements, const ReceiptIds& receipt, int64_t epoch,
                      BatchContext& context, ConfirmCounts& counts) {
    for (const Rejected& rejected : receipt.rejected) {
        auto id = locate_event(statements, rejected.row_hint, rejected.event_id);
        if (!id && id.status().code() == StatusCode::kNotFound) {
            counts.rejections_ignored.push_back(rejected.event_id);
            continue;
        }
        if (!id) return id.status();
        Stmt& reject = *statements.reject;
        reject.reset();
        reject.bind(1, *id).bind(2, rejected.reason).bind(3, epoch).bind(4, context.wall_ms());
        auto step = reject.step("marking event " + rejected.event_id + " DEAD");
        if (!step) return step.status();
        if (*step == Stmt::Step::kRow) {
            counts.dead.push_back(RejectedRow{reject.column_text(0), reject.column_text(1),
                                              reject.column_int(2), reject.column_int(3),
                                              rejected.reason});
            context.change().move(OutboxState::kSent, OutboxState::kDead, *id);
        } else {
            counts.rejections_ignored.push_back(rejected.event_id);
        }
        reject.reset();
    }
    return Status::ok();
}

}  // namespace

Result<ConfirmCounts> confirm_events(StoreCore& core, const std::vector<std::string>& event_ids,
                                     int64_t epoch, const std::vector<int64_t>& row_hints) {
    if (event_ids.empty()) return ConfirmCounts{};
    auto counts = confirm_receipts(core, {ReceiptIds{event_ids, row_hints}}, epoch);
    if (!counts) return counts.status();
    return std::move(counts->front());
}

Result<std::vector<ConfirmCounts>> confirm_receipts(StoreCore& core,
                                                    const std::vector<ReceiptIds>& receipts,
                                                    int64_t epoch) {
    std::vector<ConfirmCounts> counts(receipts.size());
    const bool any_ids = std::any_of(receipts.begin(), receipts.end(), [](const ReceiptIds& r) {
        return !r.event_ids.empty() || !r.rejected.empty();
    });
    if (!any_ids) return counts;  // nothing to confirm: no transaction
    Status status = submit_isolated(core, [&](BatchContext& context) {
        counts.assign(receipts.size(), ConfirmCounts{});  // a retried batch runs this again
        Status checked = check_epoch(core, epoch);
        if (!checked) return checked;
        auto statements = confirm_statements(core);
        if (!statements) return statements.status();
        int64_t confirmed = 0;
        for (size_t i = 0; i < receipts.size(); ++i) {
            Status done = confirm_receipt(core, *statements, receipts[i], counts[i]);
            if (!done) return done;
            done = reject_receipt(*statements, receipts[i], epoch, context, counts[i]);
            if (!done) return done;
            confirmed += static_cast<int64_t>(counts[i].confirmed.size());
        }
        context.change().confirmations(confirmed);
        return Status::ok();
    }, Durability::kLazy);  // undone by a power cut, the row waits for the next receipt (I8)
    if (!status) return status;
    return counts;
}

Result<bool> record_failure(StoreCore& core, int64_t id, const std::string& error, int64_t epoch,
                            int max_attempts) {
    bool dead = false;
    Status status = submit_isolated(core, [&](BatchContext& context) {
        Status checked = check_epoch(core, epoch);
        if (!checked) return checked;
        static const std::string kRecordFailure =
            "UPDATE outbox SET attempts = attempts + 1, last_error = ?1, epoch = ?2,"
            " failed_at_ms = ?5, state = CASE WHEN attempts + 1 >= ?3 THEN " +
            sql_literal(OutboxState::kDead) + " ELSE " + sql_literal(OutboxState::kPending) +
            " END WHERE id = ?4 AND state = " + sql_literal(OutboxState::kPending) +
            " RETURNING state";
        auto stmt = core.cached(kRecordFailure);
        if (!stmt) return stmt.status();
        (*stmt)
            ->bind(1, error)
            .bind(2, epoch)
            .bind(3, static_cast<int64_t>(max_attempts))
            .bind(4, id)
            .bind(5, context.wall_ms());
        auto step = (*stmt)->step("recording a publish failure");
        if (!step) return step.status();
        dead = *step == Stmt::Step::kRow &&
               (*stmt)->column_int(0) == static_cast<int64_t>(OutboxState::kDead);
        (*stmt)->reset();
        if (dead) context.change().move(OutboxState::kPending, OutboxState::kDead, id);
        return Status::ok();
    });
    if (!status) return status;
    return dead;
}

Status replay_event(StoreCore& core, const std::string& event_id, const std::string& reason,
                    const std::string& actor) {
    return submit_isolated(core, [&](BatchContext& context) {
        auto id = find_event_id(core.writer(), event_id);
        if (!id) return id.status();
        auto state = core.cached("SELECT state, confirmed IS NOT NULL FROM outbox WHERE id = ?1");
        if (!state) return state.status();
        (*state)->bind(1, *id);
        auto found = (*state)->step("reading the state of " + event_id);
        if (!found) return found.status();
        const auto before = static_cast<OutboxState>((*state)->column_int(0));
        const bool was_confirmed = (*state)->column_int(1) != 0;
        (*state)->reset();
        if (before == OutboxState::kPending) {
            return Status::error(StatusCode::kInvalidArgument,
                                 "event " + event_id + " is already PENDING");
        }
        // The failure it resets goes to the history first (SET reads the
        // old values).
        static const std::string kReplay =
            "UPDATE outbox SET state = " + sql_literal(OutboxState::kPending) +
            ", failure_history = " + append_failure_sql("?1", "?2", "?4") +
            ", failed_at_ms = NULL, attempts = 0, replay_count = replay_count + 1,"
            " replayed_at_ms = ?1, replay_reason = ?2, replay_actor = ?4, confirmed = NULL"
            " WHERE id = ?3";
        auto stmt = core.cached(kReplay);
        if (!stmt) return stmt.status();
        (*stmt)->bind(1, context.wall_ms()).bind(2, reason).bind(3, *id).bind(4, actor);
        Status status = (*stmt)->run("replaying " + event_id);
        if (status) {
            context.change().move(before, OutboxState::kPending, *id);
            if (was_confirmed) context.change().confirmations(-1);
        }
        return status;
    });
}

Result<int64_t> replay_all_dead(StoreCore& core, const std::string& reason,
                                const std::string& actor) {
    int64_t count = 0;
    Status status = submit_isolated(core, [&](BatchContext& context) {
        static const std::string kReplayDead =
            "UPDATE outbox SET state = " + sql_literal(OutboxState::kPending) +
            ", failure_history = " + append_failure_sql("?1", "?2", "?3") +
            ", failed_at_ms = NULL, attempts = 0, replay_count = replay_count + 1,"
            " replayed_at_ms = ?1, replay_reason = ?2, replay_actor = ?3 WHERE state = " +
            sql_literal(OutboxState::kDead) + " RETURNING id";
        auto stmt = core.cached(kReplayDead);
        if (!stmt) return stmt.status();
        (*stmt)->bind(1, context.wall_ms()).bind(2, reason).bind(3, actor);
        for (;;) {
            auto step = (*stmt)->step("replaying DEAD events");
            if (!step) return step.status();
            if (*step == Stmt::Step::kDone) return Status::ok();
            context.change().move(OutboxState::kDead, OutboxState::kPending,
                                  (*stmt)->column_int(0));
            ++count;
        }
    });
    if (!status) return status;
    return count;
}

Result<int64_t> purge_dead(StoreCore& core) {
    int64_t count = 0;
    Status status = submit_isolated(core, [&](BatchContext& context) {
        const std::string dead_rows = "outbox WHERE state = " + sql_literal(OutboxState::kDead) +
                                      " AND id < (SELECT max(id) FROM outbox)";
        // The device's highest seq may sit in a DEAD row: remember it first.
        Status run = core.writer().exec(remember_seqs_sql(dead_rows),
                                        "recording the sequence numbers of DEAD events");
        if (!run) return run;
        run = core.writer().exec(
            "DELETE FROM alarm_record WHERE id IN (SELECT id FROM " + dead_rows + ")",
            "purging DEAD alarm records");
        if (!run) return run;
        run = core.writer().exec("DELETE FROM " + dead_rows, "purging DEAD events");
        count = sqlite3_changes(core.writer().handle());
        if (run) context.change().deleted(OutboxState::kDead, count);
        return run;
    });
    if (!status) return status;
    return count;
}

}  // namespace outpost::store
