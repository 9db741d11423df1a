// A small alarm-like SQLite workload to run under the power-cut VFS, and the
// checks applied to what SQLite recovers from the images after the cut.
//
// Transaction t (1-based) inserts rows_per_transaction rows tagged txn = t,
// so the recovered rows tell exactly which transactions survived.
#ifndef OUTPOST_TESTS_FAULTS_POWERCUT_WORKLOAD_H
#define OUTPOST_TESTS_FAULTS_POWERCUT_WORKLOAD_H

#include <functional>
#include <map>
#include <string>

namespace outpost::testing {

struct WorkloadOptions {
    std::string journal_mode = "WAL";
    std::string synchronous = "FULL";
    int transactions = 50;
    int rows_per_transaction = 3;
    int payload_bytes = 200;
    // Small, so that a 50-transaction run checkpoints several times.
    int wal_autocheckpoint = 8;
    // Called after each COMMIT that returned OK, with its number.
    std::function<void(int)> after_commit;
};

struct WorkloadOutcome {
    // Highest transaction whose COMMIT returned SQLITE_OK.
    int last_acknowledged = 0;
    // True if the workload stopped on an error (normally: the power went).
    bool failed = false;
    std::string error;
};

// Creates the schema in a new database at `db_path` through `vfs_name` and
// runs the transactions until all are done or one statement fails. Always
// closes its connection before returning.
WorkloadOutcome run_workload(const std::string& db_path, const std::string& vfs_name,
                             const WorkloadOptions& options);

// What SQLite's own recovery makes of a database, opened with the default VFS.
struct Recovered {
    bool opened = false;    // open and first query worked
    std::string integrity;  // PRAGMA integrity_check result ("ok" when sound)
    bool table_present = false;
    std::map<int, int> rows_per_transaction;  // txn -> rows found
    std::string error;                        // first SQLite error met, if any

    bool corrupt() const { return !opened || integrity != "ok" || !error.empty(); }
};

Recovered recover(const std::string& db_path);

// The WAL + synchronous=NORMAL promise. Empty when it holds, otherwise what
// is wrong: the recovered database is sound, and the transactions present are
// 1..m, each whole, with no gap, m at most one past the last acknowledged (the
// COMMIT in flight may survive). Acknowledged transactions may be missing.
std::string check_sound_prefix(const Recovered& recovered, const WorkloadOutcome& outcome,
                               const WorkloadOptions& options);

// The WAL + synchronous=FULL promise: check_sound_prefix, and no acknowledged
// transaction is missing.
std::string check_acknowledged_prefix(const Recovered& recovered, const WorkloadOutcome& outcome,
                                      const WorkloadOptions& options);

// True if some acknowledged transaction is missing or incomplete.
bool lost_acknowledged(const Recovered& recovered, const WorkloadOutcome& outcome,
                       const WorkloadOptions& options);

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_FAULTS_POWERCUT_WORKLOAD_H
