#include "proof/checker.h"

#include <sqlite3.h>

#include <functional>
#include <map>
#include <utility>

#include "store/outbox.h"

namespace outpost::faults {
namespace {

struct Row {
    int64_t id = 0;
    std::string event_id;
    std::string device_id;
    int64_t seq = 0;
    int64_t state = 0;
    bool alarm_present = false;
    std::string alarm_event_id;
    std::string token;  // the alarm's text: which call wrote it
};

class Reader final {
  public:
    explicit Reader(const std::string& path) {
        if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
            error_ = db_ ? sqlite3_errmsg(db_) : "out of memory";
            return;
        }
        sqlite3_busy_timeout(db_, 5000);
        // Leave the WAL as the crash left it: the store must do its own
        // recovery and checkpoints, not inherit ours.
        sqlite3_db_config(db_, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
    }
    ~Reader() { sqlite3_close_v2(db_); }
    Reader(const Reader&) = delete;
    Reader& operator=(const Reader&) = delete;

    const std::string& error() const { return error_; }

    // Runs `sql` and calls `row` for each result row. False (error() set) on
    // any SQLite error.
    bool each(const std::string& sql, const std::function<void(sqlite3_stmt*)>& row) {
        if (!error_.empty()) return false;
        sqlite3_stmt* stmt = nullptr;
        int rc = sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr);
        if (rc == SQLITE_OK) {
            while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) row(stmt);
        }
        if (rc != SQLITE_DONE) error_ = sql + ": " + sqlite3_errmsg(db_);
        sqlite3_finalize(stmt);
        return error_.empty();
    }

  private:
    sqlite3* db_ = nullptr;
    std::string error_;
};

std::string text(sqlite3_stmt* stmt, int column) {
    const unsigned char* value = sqlite3_column_text(stmt, column);
    return value ? reinterpret_cast<const char*>(value) : "";
}

class Check final {
  public:
    Check(CheckReport& report, const EvidenceLog& evidence)
        : report_(report), evidence_(evidence) {}

    void problem(uint64_t& counter, const std::string& line) {
        ++counter;
        if (report_.problems.size() < kMaxProblems) report_.problems.push_back(line);
    }

    void run(Reader& db) {
        std::vector<std::string> integrity;
        if (!db.each("PRAGMA integrity_check",
                     [&](sqlite3_stmt* stmt) { integrity.push_back(text(stmt, 0)); })) {
            return problem(report_.integrity_failures, "C1 cannot check: " + db.error());
        }
        if (integrity != std::vector<std::string>{"ok"}) {
            for (const std::string& line : integrity) {
                problem(report_.integrity_failures, "C1 integrity_check: " + line);
            }
        }
        // A cut during the very first open may leave a database without the
        // schema: legal, and then it holds no rows (acknowledged ones are lost).
        int64_t tables = 0;
        db.each("SELECT count(*) FROM sqlite_master WHERE name IN ('outbox', 'alarm_record')",
                [&](sqlite3_stmt* stmt) { tables = sqlite3_column_int64(stmt, 0); });
        if (tables == 2 && !read_rows(db)) {
            return problem(report_.integrity_failures, "cannot read: " + db.error());
        }
        if (!db.error().empty()) return problem(report_.integrity_failures, db.error());
        check_rows();
        check_acknowledged();
        if (tables == 2) check_sequences(db);
    }

  private:
    bool read_rows(Reader& db) {
        const char* sql =
            "SELECT o.id, o.event_id, o.device_id, o.seq, o.state, a.id IS NOT NULL, a.event_id,"
            " coalesce(a.text, CASE WHEN json_valid(o.envelope)"
            "   THEN json_extract(o.envelope, '$.payload.text') END, '')"
            " FROM outbox o LEFT JOIN alarm_record a ON a.id = o.id"
            " WHERE o.topic_suffix LIKE 'alarm/%'";
        bool ok = db.each(sql, [&](sqlite3_stmt* stmt) {
            Row row;
            row.id = sqlite3_column_int64(stmt, 0);
            row.event_id = text(stmt, 1);
            row.device_id = text(stmt, 2);
            row.seq = sqlite3_column_int64(stmt, 3);
            row.state = sqlite3_column_int64(stmt, 4);
            row.alarm_present = sqlite3_column_int(stmt, 5) != 0;
            row.alarm_event_id = text(stmt, 6);
            row.token = text(stmt, 7);
            by_event_[row.event_id] = rows_.size();
            rows_.push_back(std::move(row));
        });
        // C3, the other direction: business rows without their event.
        return ok &&
               db.each(
                   "SELECT a.id, a.event_id FROM alarm_record a"
                   " LEFT JOIN outbox o ON o.id = a.id"
                   " WHERE o.id IS NULL OR o.event_id != a.event_id",
                   [&](sqlite3_stmt* stmt) {
                       problem(report_.integrity_failures,
                               "C3 alarm_record " + std::to_string(sqlite3_column_int64(stmt, 0)) +
                                   " (" + text(stmt, 1) + ") has no matching outbox row");
                   });
    }

    void check_rows() {
        report_.rows = rows_.size();
        std::map<std::string, uint64_t> rows_per_call;
        for (const Row& row : rows_) {
            if (!row.alarm_present || row.alarm_event_id != row.event_id) {
                problem(report_.integrity_failures, "C3 outbox row " + std::to_string(row.id) +
                                                        " (" + row.event_id +
                                                        ") has no matching alarm_record row");
            }
            ++rows_per_call[row.token];
        }
        for (const auto& [token, count] : rows_per_call) {
            auto call = evidence_.calls().find(token);
            if (call == evidence_.calls().end()) {
                problem(report_.phantom, "C4 " + std::to_string(count) + " row(s) of call '" +
                                             token + "' that was never made");
                continue;
            }
            uint64_t acknowledged_ids = 0;
            uint64_t allowed = 0;
            std::map<std::string, bool> seen;
            for (const CallAttempt& attempt : call->second.attempts) {
                if (attempt.outcome == CallOutcome::kAcknowledged) {
                    if (!seen[attempt.event_id]) ++acknowledged_ids;
                    seen[attempt.event_id] = true;
                }
                if (attempt.outcome == CallOutcome::kInFlight ||
                    attempt.outcome == CallOutcome::kUnknown) {
                    ++allowed;
                }
            }
            allowed += acknowledged_ids;
            if (count > allowed) {
                problem(report_.phantom, "C4 call '" + token + "' has " + std::to_string(count) +
                                             " row(s) but only " + std::to_string(allowed) +
                                             " attempt(s) that may have written one");
            }
            if (call->second.in_doubt()) {
                report_.in_doubt_present += count > acknowledged_ids ? count - acknowledged_ids : 0;
            }
            if (count > 1) report_.duplicates += count - 1;
        }
        for (const auto& [token, call] : evidence_.calls()) {
            if (call.in_doubt() && !call.acknowledged() && rows_per_call.count(token) == 0) {
                ++report_.in_doubt_absent;
            }
        }
    }

    void check_acknowledged() {
        std::map<std::pair<std::string, int64_t>, std::string> acknowledged_seq;
        for (const auto& [token, call] : evidence_.calls()) {
            bool counted = false;
            for (const CallAttempt& attempt : call.attempts) {
                if (attempt.outcome != CallOutcome::kAcknowledged) continue;
                if (!counted) ++report_.acknowledged;
                counted = true;
                auto key = std::make_pair(attempt.device_id, attempt.seq);
                auto earlier = acknowledged_seq.emplace(key, attempt.event_id);
                if (!earlier.second && earlier.first->second != attempt.event_id) {
                    problem(report_.integrity_failures,
                            "C5 " + attempt.device_id + " seq " + std::to_string(attempt.seq) +
                                " acknowledged for two events: " + earlier.first->second + " and " +
                                attempt.event_id);
                }
                check_one(token, attempt);
            }
        }
        for (const std::string& event_id : evidence_.marks_acknowledged()) {
            auto found = by_event_.find(event_id);
            if (found == by_event_.end()) continue;
            const int64_t state = rows_[found->second].state;
            if (state == static_cast<int64_t>(store::OutboxState::kSent)) continue;
            if (state == static_cast<int64_t>(store::OutboxState::kPending) &&
                evidence_.mark_may_be_undone(event_id)) {
                ++report_.marks_undone;
            } else {
                problem(report_.integrity_failures, "C5 event " + event_id +
                                                        " was marked SENT but is in state " +
                                                        std::to_string(state) +
                                                        (state == static_cast<int64_t>(store::OutboxState::kPending)
                                                             ? " although an alarm acknowledged"
                                                                      " after the mark synced it"
                                                                    : ""));
            }
        }
    }

    void check_one(const std::string& token, const CallAttempt& attempt) {
        auto found = by_event_.find(attempt.event_id);
        if (found == by_event_.end()) {
            if (evidence_.mark_started(attempt.event_id)) {
                ++report_.purged;  // C3 already proved the alarm row went too
                return;
            }
            return problem(report_.lost, "C2 acknowledged event " + attempt.event_id + " (call '" +
                                             token + "', " + attempt.device_id + " seq " +
                                             std::to_string(attempt.seq) + ") is missing");
        }
        const Row& row = rows_[found->second];
        // Without its alarm row the call is unknown; C3 reports that already.
        const bool other_call = row.alarm_present && row.token != token;
        if (row.device_id != attempt.device_id || row.seq != attempt.seq || other_call) {
            problem(report_.lost, "C2 event " + attempt.event_id + " came back as " +
                                      row.device_id + " seq " + std::to_string(row.seq) +
                                      " of call '" + row.token + "', acknowledged as " +
                                      attempt.device_id + " seq " + std::to_string(attempt.seq) +
                                      " of call '" + token + "'");
        }
    }

    void check_sequences(Reader& db) {
        db.each(
            "SELECT device_id, seq, count(*) FROM outbox GROUP BY device_id, seq HAVING count(*) > "
            "1",
            [&](sqlite3_stmt* stmt) {
                problem(report_.integrity_failures,
                        "C5 " + text(stmt, 0) + " seq " +
                            std::to_string(sqlite3_column_int64(stmt, 1)) + " appears " +
                            std::to_string(sqlite3_column_int64(stmt, 2)) + " times");
            });
        if (!db.error().empty()) problem(report_.integrity_failures, "C5 " + db.error());
    }

    CheckReport& report_;
    const EvidenceLog& evidence_;
    std::vector<Row> rows_;
    std::map<std::string, size_t> by_event_;
};

}  // namespace

std::string CheckReport::summary() const {
    return "acknowledged=" + std::to_string(acknowledged) + " rows=" + std::to_string(rows) +
           " lost=" + std::to_string(lost) + " phantom=" + std::to_string(phantom) +
           " in_doubt_present=" + std::to_string(in_doubt_present) +
           " in_doubt_absent=" + std::to_string(in_doubt_absent) +
           " purged=" + std::to_string(purged) + " duplicates=" + std::to_string(duplicates) +
           " marks_undone=" + std::to_string(marks_undone) +
           " integrity_failures=" + std::to_string(integrity_failures);
}

CheckReport check_database(const std::string& db_path, const EvidenceLog& evidence) {
    CheckReport report;
    Reader db(db_path);
    Check check(report, evidence);
    if (!db.error().empty()) {
        check.problem(report.integrity_failures, "C1 cannot open " + db_path + ": " + db.error());
        return report;
    }
    check.run(db);
    return report;
}

}  // namespace outpost::faults
