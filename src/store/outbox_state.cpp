// The writer's view of the outbox's figures: loaded from the summary at open
// and after another connection wrote, advanced by each batch, written back
// as outbox_summary.h (S1-S5) requires.
#include <algorithm>

#include "common/uuid.h"
#include "store/store_core.h"

namespace outpost::store {

Status StoreCore::load_sequences(int64_t after_id) {
    // Rows written since `after_id` (by us before a reopen, or by another
    // process) may carry higher sequence numbers than we know; device_seq
    // does not cover them yet (S4), so they are ours to save.
    auto stmt = Stmt::prepare(db_,
                              "SELECT device_id, max(seq), max(id) FROM outbox WHERE id > ?1 "
                              "GROUP BY device_id");
    if (!stmt) return stmt.status();
    stmt->bind(1, after_id);
    return stmt->for_each_row("loading sequence numbers", [&](const Stmt& row) {
        const std::string device = row.column_text(0);
        int64_t& seq = last_seq_[device];
        seq = std::max(seq, row.column_int(1));
        unsaved_seq_[device] = seq;
        high_water_id_ = std::max(high_water_id_, row.column_int(2));
    });
}

Status StoreCore::load_outbox_state() {
    OutboxSummary summary;
    auto tally = derive_tally(db_, &summary);
    if (!tally) return tally.status();
    tally_ = *tally;
    summary_through_id_ = summary.through_id;
    summary_uptime_ms_ = summary.uptime_ms;
    summary_boot_id_ = summary.boot_id;

    // S4: device_seq covers every row up to through_id; the rest is the tail.
    auto saved = Stmt::prepare(db_, "SELECT device_id, last_seq FROM device_seq");
    if (!saved) return saved.status();
    Status status = saved->for_each_row("loading saved sequence numbers", [&](const Stmt& row) {
        int64_t& seq = last_seq_[row.column_text(0)];
        seq = std::max(seq, row.column_int(1));
    });
    if (!status) return status;
    status = load_sequences(std::max(high_water_id_, summary.through_id));
    if (!status) return status;

    // The newest row (the highest id is never purged) seeds the event id
    // generator, so ids keep growing with rowids (find_event bisects them).
    auto newest = Stmt::prepare(db_, "SELECT id, event_id FROM outbox ORDER BY id DESC LIMIT 1");
    if (!newest) return newest.status();
    auto step = newest->step("reading the newest event");
    if (!step) return step.status();
    if (*step == Stmt::Step::kRow) {
        high_water_id_ = std::max(high_water_id_, newest->column_int(0));
        seed_uuid_v7(newest->column_text(1));
    }
    return Status::ok();
}

Status StoreCore::prepare_summary(BatchContext& context, int64_t uptime_ms, OutboxTally* after,
                                  OutboxSummary* saved) {
    const OutboxChange& change = context.change();
    auto tally = apply_change(db_, tally_, change);
    if (!tally) return tally.status();
    *after = *tally;
    const int64_t through_id = std::max(high_water_id_, context.max_outbox_id());
    const bool wrote_rows = change.rows_changed || context.events_added() > 0;
    const bool due = change.rows_changed ||                                    // S2
                     through_id - summary_through_id_ >= kSummaryEveryRows ||  // S3
                     (wrote_rows && (uptime_ms - summary_uptime_ms_ >= kSummaryEveryMs ||
                                     summary_boot_id_ != boot_id_));
    if (!due || through_id == 0) return Status::ok();

    OutboxSummary summary;
    summary.tally = *after;
    summary.through_id = through_id;
    summary.boot_id = boot_id_;
    summary.uptime_ms = uptime_ms;
    // S4: the seqs of every row up to through_id, before the summary says so.
    auto upsert = cached(
        "INSERT INTO device_seq (device_id, last_seq) VALUES (?1, ?2)"
        " ON CONFLICT (device_id) DO UPDATE SET last_seq = max(last_seq, excluded.last_seq)");
    if (!upsert) return upsert.status();
    auto save_seq = [&](const std::string& device, int64_t seq) {
        (*upsert)->reset();
        (*upsert)->bind(1, device).bind(2, seq);
        return (*upsert)->run("saving a device's sequence number");
    };
    for (const auto& [device, seq] : unsaved_seq_) {
        if (context.overlay().count(device) != 0) continue;  // the batch's is higher
        Status status = save_seq(device, seq);
        if (!status) return status;
    }
    for (const auto& [device, seq] : context.overlay()) {
        Status status = save_seq(device, seq);
        if (!status) return status;
    }
    Status status = write_summary(db_, summary);
    if (!status) return status;
    *saved = summary;
    return Status::ok();
}

}  // namespace outpost::store
