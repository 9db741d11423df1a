#include "proof/delivery_check.h"

#include <sqlite3.h>

#include "proof/checker.h"
#include "store/outbox.h"

namespace outpost::faults {
namespace {

void problem(DeliveryReport& report, uint64_t& counter, const std::string& line) {
    ++counter;
    if (report.problems.size() < kMaxProblems) report.problems.push_back(line);
}

struct RowState {
    int state = 0;
    bool confirmed = false;
};

// eventId -> outbox state of every row, read without the store's code.
bool read_states(const std::string& db_path, std::map<std::string, RowState>* states,
                 std::string* error) {
    sqlite3* db = nullptr;
    int rc = sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* stmt = nullptr;
    if (rc == SQLITE_OK) {
        sqlite3_busy_timeout(db, 5000);
        rc = sqlite3_prepare_v2(db, "SELECT event_id, state, confirmed FROM outbox", -1, &stmt,
                                nullptr);
    }
    while (rc == SQLITE_OK || rc == SQLITE_ROW) {
        rc = sqlite3_step(stmt);
        if (rc != SQLITE_ROW) break;
        const unsigned char* id = sqlite3_column_text(stmt, 0);
        (*states)[id ? reinterpret_cast<const char*>(id) : ""] = {sqlite3_column_int(stmt, 1),
                                                                  sqlite3_column_int(stmt, 2) == 1};
    }
    if (rc != SQLITE_DONE) *error = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_finalize(stmt);
    sqlite3_close_v2(db);
    return rc == SQLITE_DONE;
}

// Calls `each(token, event_id)` for the first acknowledged attempt of every
// call: one acknowledgement per call is the promise.
template <typename Each>
void for_each_acknowledged(const EvidenceLog& evidence, Each each) {
    for (const auto& [token, call] : evidence.calls()) {
        for (const CallAttempt& attempt : call.attempts) {
            if (attempt.outcome != CallOutcome::kAcknowledged) continue;
            each(token, attempt.event_id);
            break;
        }
    }
}

bool is_sent(const RowState& row) {
    return row.state == static_cast<int>(store::OutboxState::kSent);
}

}  // namespace

std::string DeliveryReport::summary() const {
    return "acknowledged=" + std::to_string(acknowledged) + " seen=" + std::to_string(seen) +
           " not_sent=" + std::to_string(not_sent) + " not_seen=" + std::to_string(not_seen) +
           " not_confirmed=" + std::to_string(not_confirmed) +
           " phantom=" + std::to_string(phantom) + " duplicates=" + std::to_string(duplicates);
}

DeliveryReport check_delivery(const std::string& db_path, const EvidenceLog& evidence,
                              const std::string& observer, const std::map<std::string, int>& seen,
                              bool require_sent) {
    DeliveryReport report;
    std::map<std::string, RowState> states;
    std::string error;
    const bool readable = read_states(db_path, &states, &error);
    if (!readable) report.problems.push_back("cannot read " + db_path + ": " + error);
    for_each_acknowledged(evidence, [&](const std::string& token, const std::string& event_id) {
        ++report.acknowledged;
        auto state = states.find(event_id);
        if (require_sent && (state == states.end() || !is_sent(state->second))) {
            problem(report, report.not_sent,
                    "D1 acknowledged event " + event_id + " (call '" + token + "') is " +
                        (state == states.end() ? "missing" : "not SENT") +
                        " in the gateway database");
        }
        if (seen.count(event_id) == 0) {
            problem(report, report.not_seen,
                    "D1 acknowledged event " + event_id + " (call '" + token +
                        "') never reached the " + observer);
        }
    });
    for (const auto& [event_id, arrivals] : seen) {
        ++report.seen;
        if (arrivals > 1) report.duplicates += static_cast<uint64_t>(arrivals - 1);
        if (readable && states.count(event_id) == 0) {
            problem(report, report.phantom,
                    "D2 the " + observer + " saw event '" + event_id +
                        "', which the gateway database does not hold");
        }
    }
    return report;
}

DeliveryReport check_confirmed(const std::string& db_path, const EvidenceLog& evidence) {
    DeliveryReport report;
    std::map<std::string, RowState> states;
    std::string error;
    if (!read_states(db_path, &states, &error)) {
        report.problems.push_back("cannot read " + db_path + ": " + error);
    }
    for_each_acknowledged(evidence, [&](const std::string& token, const std::string& event_id) {
        ++report.acknowledged;
        auto state = states.find(event_id);
        if (state == states.end() || !is_sent(state->second) || !state->second.confirmed) {
            problem(report, report.not_confirmed,
                    "D3 acknowledged event " + event_id + " (call '" + token + "') is " +
                        (state == states.end()    ? "missing"
                         : is_sent(state->second) ? "SENT but not confirmed"
                                                  : "not SENT") +
                        " in the gateway database");
        }
    });
    return report;
}

}  // namespace outpost::faults
