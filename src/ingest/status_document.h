// The sections of a status document that more than one program writes: the
// store's figures and the ingest counters. outpostd's status (the socket's
// {"op":"status"} and its status file), the socket server's own answer when
// no daemon status is given, and `outpostctl status --json --db` all build
// their "store" and "ingest" objects here, so a script reads the same fields
// (snake_case) whichever way it asked.
#ifndef OUTPOST_INGEST_STATUS_DOCUMENT_H
#define OUTPOST_INGEST_STATUS_DOCUMENT_H

#include <nlohmann/json.hpp>

#include "ingest/ingest_server.h"
#include "outpost/store.h"

namespace outpost::ingest {

// Every StoreStats field under its own name: pending, sent, dead,
// oldest_pending_id, oldest_pending_age_ms, database_bytes, quota_bytes, and the counters of the
// process that has the store open (since it opened it): commits,
// events_recorded, wal_frames, wal_bytes, checkpoint_pages,
// checkpoint_failures, purged_rows.
nlohmann::json store_stats_json(const StoreStats& stats);

// connections, requests, alarms_recorded, errors, clients.
nlohmann::json ingest_stats_json(const ServerStats& stats);

}  // namespace outpost::ingest

#endif  // OUTPOST_INGEST_STATUS_DOCUMENT_H
