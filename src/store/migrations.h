// Schema migrations: numbered SQL files from schema/, embedded at build time,
// applied in order inside one transaction each, tracked by PRAGMA user_version.
#ifndef OUTPOST_STORE_MIGRATIONS_H
#define OUTPOST_STORE_MIGRATIONS_H

#include <vector>

#include "outpost/status.h"
#include "store/sqlite_db.h"

namespace outpost::store {

struct Migration {
    int number;        // 1, 2, ... = the user_version after applying it
    const char* name;  // file name, for messages
    const char* sql;
};

// Generated from schema/NNN_*.sql, ordered, numbers without gaps.
extern const std::vector<Migration> kMigrations;

// The schema version this build writes.
int latest_schema_version();

// Reads the database's version without writing anything. Fails with
// kVersionTooNew when it is above latest_schema_version().
Result<int> check_schema_version(Db& db);

// Applies every migration above the current version. Each migration and its
// user_version bump commit together, so a crash leaves a whole version.
// A failed COMMIT is kOutcomeUnknown: the caller closes `db`, and the next
// open finds the migration applied or not and goes on from there.
Status apply_migrations(Db& db, int current_version);

}  // namespace outpost::store

#endif  // OUTPOST_STORE_MIGRATIONS_H
