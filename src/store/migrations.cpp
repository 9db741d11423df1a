#include "store/migrations.h"

#include <string>

namespace outpost::store {

namespace {

// Ends a migration's transaction after `failure` and returns `failure`,
// naming a ROLLBACK that failed too (the caller closes the connection then,
// which ends the transaction for sure).
Status roll_back(Db& db, const Status& failure, const std::string& what) {
    Status rolled_back = db.exec("ROLLBACK", what);
    if (rolled_back) return failure;
    return Status::error(failure.code(),
                         failure.message() + "; rolling back failed too: " + rolled_back.message());
}

// A COMMIT that fails may still have written its frames (write_batch.cpp,
// I4): the migration is then applied or not, and only the next open can
// tell. That open reads user_version again and applies what is missing, so
// both outcomes end in the same schema.
Status commit(Db& db, const std::string& what) {
    Status status = db.exec("COMMIT", what);
    if (status) return status;
    if (!sqlite3_get_autocommit(db.handle())) status = roll_back(db, status, what);
    return Status::error(StatusCode::kOutcomeUnknown,
                         status.message() +
                             "; the migration may or may not have been applied: open the store "
                             "again, which applies it if it is missing");
}

}  // namespace

int latest_schema_version() { return kMigrations.empty() ? 0 : kMigrations.back().number; }

Result<int> check_schema_version(Db& db) {
    auto version = db.query_int("PRAGMA user_version", "reading schema version");
    if (!version) return version.status();
    if (*version > latest_schema_version()) {
        return Status::error(StatusCode::kVersionTooNew,
                             "database schema version " + std::to_string(*version) +
                                 " is newer than this build's " +
                                 std::to_string(latest_schema_version()) +
                                 "; run a newer Outpost (downgrades are refused)");
    }
    if (*version < 0) {
        return Status::error(StatusCode::kCorruption,
                             "negative schema version " + std::to_string(*version));
    }
    return static_cast<int>(*version);
}

Status apply_migrations(Db& db, int current_version) {
    for (const Migration& migration : kMigrations) {
        if (migration.number <= current_version) continue;
        const std::string what = std::string("applying migration ") + migration.name;
        // IMMEDIATE: take the write lock first, so two processes opening a new
        // database at once cannot both apply the same migration.
        Status status = db.exec("BEGIN IMMEDIATE", what);
        if (!status) return status;
        auto version = db.query_int("PRAGMA user_version", what);
        if (!version) return roll_back(db, version.status(), what);
        if (*version >= migration.number) {  // another process got there first
            status = commit(db, what);
            if (!status) return status;
            continue;
        }
        status = db.exec(migration.sql, what);
        if (status) {
            status = db.exec("PRAGMA user_version = " + std::to_string(migration.number), what);
        }
        if (!status) return roll_back(db, status, what);
        // Durable like any other commit (synchronous=FULL is already set).
        status = commit(db, what);
        if (!status) return status;
    }
    return Status::ok();
}

}  // namespace outpost::store
