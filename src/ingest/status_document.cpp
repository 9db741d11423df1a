#include "ingest/status_document.h"

namespace outpost::ingest {

nlohmann::json store_stats_json(const StoreStats& stats) {
    return {{"pending", stats.pending},
            {"sent", stats.sent},
            {"confirmed", stats.confirmed},
            {"awaiting_receipt", stats.sent - stats.confirmed},
            {"dead", stats.dead},
            {"oldest_pending_id", stats.oldest_pending_id},
            {"oldest_pending_age_ms", stats.oldest_pending_age_ms},
            {"database_bytes", stats.database_bytes},
            {"quota_bytes", stats.quota_bytes},
            {"commits", stats.commits},
            {"events_recorded", stats.events_recorded},
            {"wal_frames", stats.wal_frames},
            {"wal_bytes", stats.wal_bytes},
            {"checkpoint_pages", stats.checkpoint_pages},
            {"checkpoint_failures", stats.checkpoint_failures},
            {"purged_rows", stats.purged_rows}};
}

nlohmann::json ingest_stats_json(const ServerStats& stats) {
    return {{"connections", stats.connections},
            {"requests", stats.requests},
            {"alarms_recorded", stats.alarms_recorded},
            {"errors", stats.errors},
            {"clients", stats.clients}};
}

}  // namespace outpost::ingest
