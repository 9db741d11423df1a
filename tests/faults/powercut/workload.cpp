#include "workload.h"

#include <sqlite3.h>

#include <string>

namespace outpost::testing {

namespace {

// Runs one statement without results; returns the SQLite result code.
int exec(sqlite3* db, const std::string& sql, std::string* error) {
    char* message = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
    if (rc != SQLITE_OK && error->empty()) {
        *error = sql + ": " + (message != nullptr ? message : sqlite3_errstr(rc)) + " (" +
                 std::to_string(rc) + ")";
    }
    sqlite3_free(message);
    return rc;
}

int insert_rows(sqlite3* db, int txn, const WorkloadOptions& options, std::string* error) {
    sqlite3_stmt* insert = nullptr;
    int rc = sqlite3_prepare_v2(db, "INSERT INTO alarm(txn, idx, payload) VALUES(?1, ?2, ?3)", -1,
                                &insert, nullptr);
    const std::string payload(static_cast<std::size_t>(options.payload_bytes),
                              static_cast<char>('a' + txn % 26));
    for (int idx = 0; rc == SQLITE_OK && idx < options.rows_per_transaction; ++idx) {
        sqlite3_bind_int(insert, 1, txn);
        sqlite3_bind_int(insert, 2, idx);
        sqlite3_bind_blob(insert, 3, payload.data(), static_cast<int>(payload.size()),
                          SQLITE_TRANSIENT);
        rc = sqlite3_step(insert);
        rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
        sqlite3_reset(insert);
    }
    if (rc != SQLITE_OK && error->empty()) {
        *error = "INSERT in transaction " + std::to_string(txn) + ": " + sqlite3_errmsg(db);
    }
    sqlite3_finalize(insert);
    return rc;
}

}  // namespace

WorkloadOutcome run_workload(const std::string& db_path, const std::string& vfs_name,
                             const WorkloadOptions& options) {
    WorkloadOutcome outcome;
    sqlite3* db = nullptr;
    int rc = sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE,
                             vfs_name.c_str());
    if (rc != SQLITE_OK) {
        outcome.failed = true;
        outcome.error = "open: " + std::string(sqlite3_errstr(rc));
        sqlite3_close(db);
        return outcome;
    }
    std::string* error = &outcome.error;
    rc = exec(db, "PRAGMA journal_mode=" + options.journal_mode, error);
    if (rc == SQLITE_OK) rc = exec(db, "PRAGMA synchronous=" + options.synchronous, error);
    if (rc == SQLITE_OK) {
        rc = exec(db, "PRAGMA wal_autocheckpoint=" + std::to_string(options.wal_autocheckpoint),
                  error);
    }
    if (rc == SQLITE_OK) {
        rc = exec(db,
                  "CREATE TABLE alarm(id INTEGER PRIMARY KEY, txn INTEGER NOT NULL,"
                  " idx INTEGER NOT NULL, payload BLOB NOT NULL);"
                  "CREATE INDEX alarm_by_txn ON alarm(txn, idx);",
                  error);
    }
    for (int txn = 1; rc == SQLITE_OK && txn <= options.transactions; ++txn) {
        rc = exec(db, "BEGIN", error);
        if (rc == SQLITE_OK) rc = insert_rows(db, txn, options, error);
        if (rc == SQLITE_OK) rc = exec(db, "COMMIT", error);
        if (rc == SQLITE_OK) {
            outcome.last_acknowledged = txn;
            if (options.after_commit) options.after_commit(txn);
        }
    }
    if (rc != SQLITE_OK) {
        outcome.failed = true;
        // The outcome of a failed COMMIT is unknown; leave no transaction open.
        if (sqlite3_get_autocommit(db) == 0)
            sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
    }
    sqlite3_close(db);
    return outcome;
}

Recovered recover(const std::string& db_path) {
    Recovered recovered;
    sqlite3* db = nullptr;
    int rc = sqlite3_open_v2(db_path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr);
    sqlite3_stmt* stmt = nullptr;
    // Only what recovery finds matters here, not the durability of this copy:
    // skip the fsyncs of the checkpoint that closing runs.
    if (rc == SQLITE_OK) rc = sqlite3_exec(db, "PRAGMA synchronous=OFF", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK) {
        rc = sqlite3_prepare_v2(db, "PRAGMA integrity_check", -1, &stmt, nullptr);
    }
    if (rc == SQLITE_OK) {
        std::string text;
        while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
            const auto* line = reinterpret_cast<const char*>(sqlite3_column_text(stmt, 0));
            if (!text.empty()) text += "; ";
            text += line != nullptr ? line : "";
        }
        recovered.integrity = text;
        rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    }
    sqlite3_finalize(stmt);
    stmt = nullptr;
    if (rc == SQLITE_OK) {
        recovered.opened = true;
        rc = sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'alarm'", -1,
                                &stmt, nullptr);
        if (rc == SQLITE_OK && sqlite3_step(stmt) == SQLITE_ROW) {
            recovered.table_present = sqlite3_column_int(stmt, 0) == 1;
        }
        sqlite3_finalize(stmt);
        stmt = nullptr;
    }
    if (rc == SQLITE_OK && recovered.table_present) {
        rc = sqlite3_prepare_v2(db, "SELECT txn, count(*) FROM alarm GROUP BY txn", -1, &stmt,
                                nullptr);
        while (rc == SQLITE_OK && (rc = sqlite3_step(stmt)) == SQLITE_ROW) {
            recovered.rows_per_transaction[sqlite3_column_int(stmt, 0)] =
                sqlite3_column_int(stmt, 1);
            rc = SQLITE_OK;
        }
        rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
        sqlite3_finalize(stmt);
    }
    if (rc != SQLITE_OK) {
        recovered.error = std::string(sqlite3_errstr(rc)) + ": " +
                          (db != nullptr ? sqlite3_errmsg(db) : "no connection");
    }
    sqlite3_close(db);
    return recovered;
}

namespace {

// How many transactions survived as 1..m, each whole; sets *problem if the
// database is unsound or the survivors are not such a prefix.
int surviving_prefix(const Recovered& recovered, const WorkloadOptions& options,
                     std::string* problem) {
    if (recovered.corrupt()) {
        *problem = "recovered database is not sound: integrity '" + recovered.integrity +
                   "', error '" + recovered.error + "'";
        return 0;
    }
    const auto& rows = recovered.rows_per_transaction;
    int expected = 1;
    for (const auto& [txn, count] : rows) {
        if (txn != expected) {
            *problem = "transaction " + std::to_string(txn) + " survived but " +
                       std::to_string(expected) + " did not";
            return 0;
        }
        if (count != options.rows_per_transaction) {
            *problem = "transaction " + std::to_string(txn) + " survived with " +
                       std::to_string(count) + " rows";
            return 0;
        }
        ++expected;
    }
    return expected - 1;
}

}  // namespace

std::string check_sound_prefix(const Recovered& recovered, const WorkloadOutcome& outcome,
                               const WorkloadOptions& options) {
    std::string problem;
    const int survived = surviving_prefix(recovered, options, &problem);
    if (problem.empty() && survived > outcome.last_acknowledged + 1) {
        problem = "transaction " + std::to_string(survived) + " survived, but the last COMMIT" +
                  " issued was " + std::to_string(outcome.last_acknowledged + 1);
    }
    return problem;
}

std::string check_acknowledged_prefix(const Recovered& recovered, const WorkloadOutcome& outcome,
                                      const WorkloadOptions& options) {
    std::string problem = check_sound_prefix(recovered, outcome, options);
    if (!problem.empty()) return problem;
    const int survived = static_cast<int>(recovered.rows_per_transaction.size());
    if (survived < outcome.last_acknowledged) {
        problem = "acknowledged transactions " + std::to_string(survived + 1) + ".." +
                  std::to_string(outcome.last_acknowledged) + " were lost";
    }
    return problem;
}

bool lost_acknowledged(const Recovered& recovered, const WorkloadOutcome& outcome,
                       const WorkloadOptions& options) {
    for (int txn = 1; txn <= outcome.last_acknowledged; ++txn) {
        const auto found = recovered.rows_per_transaction.find(txn);
        if (found == recovered.rows_per_transaction.end() ||
            found->second != options.rows_per_transaction) {
            return true;
        }
    }
    return false;
}

}  // namespace outpost::testing
