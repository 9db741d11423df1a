// Recovery of the writer after a failed batch (write_batch.cpp, I5 and I6).
//
// A failed batch is rolled back. After an I/O error, an unknown COMMIT
// outcome, damage reported by SQLite, or a ROLLBACK that failed, the writer
// connection is closed and opened again: SQLite then rereads the WAL and runs
// its own recovery, instead of us retrying a sync that already failed (the
// kernel may have dropped the dirty pages and cleared the error). The reopen
// is checked with quick_check; damage found there is kept in damaged_ and
// refuses every later batch until the store is reopened, which applies the
// corruption policy.
#include "store/store_core.h"

namespace outpost::store {

Status StoreCore::abandon_batch(const Status& failure) {
    if (!damaged_.is_ok()) return failure;  // I6: closed, and stays closed
    used_bytes_bound_ = -1;  // Q1: it may have been counted inside this batch
    const StatusCode code = failure.code();
    bool reopen = code == StatusCode::kIoError || code == StatusCode::kOutcomeUnknown ||
                  code == StatusCode::kCorruption;
    std::string found;
    if (db_.is_open() && !sqlite3_get_autocommit(db_.handle())) {
        Status rolled_back = db_.exec("ROLLBACK", "rolling back a failed batch on " + path_);
        if (!rolled_back) {
            // A connection left inside the transaction would refuse every
            // later BEGIN: close it instead (I5).
            reopen = true;
            found += "; " + rolled_back.message();
        }
    }
    if (reopen) {
        Status recovered = recover_after_io_error();
        if (!recovered) found += "; then, reopening: " + recovered.message();
    }
    if (found.empty()) return failure;
    return Status::error(code, failure.message() + found);
}

Status StoreCore::recover_after_io_error() {
    // Close and reopen: SQLite rereads the WAL and runs recovery. Then check.
    db_.close();
    Status status = open_writer();  // on failure db_ stays closed: begin_batch retries
    if (status) {
        auto check = db_.query_text("PRAGMA quick_check", "checking integrity after an I/O error");
        if (!check) {
            status = check.status();
        } else if (*check != "ok") {
            status = Status::error(StatusCode::kCorruption, "quick_check: " + *check);
        }
    }
    if (status.code() == StatusCode::kCorruption) {
        // I6: no more writes into a damaged file.
        damaged_ =
            Status::error(StatusCode::kCorruption,
                          path_ + " was found damaged after an I/O error (" + status.message() +
                              "); writes are refused. Close the store and open it again: "
                              "open applies StoreOptions::corruption_policy");
        db_.close();
        return damaged_;
    }
    return status;
}

}  // namespace outpost::store
