// The "store" object every status document carries (outpostd's status, the
// socket server's own answer, `outpostctl status --json --db`): one field
// set, written by ingest::store_stats_json. Tests of all three programs hold
// their documents against this list.
#ifndef OUTPOST_TESTS_STATUS_FIELDS_H
#define OUTPOST_TESTS_STATUS_FIELDS_H

#include <nlohmann/json.hpp>
#include <set>
#include <string>

namespace outpost::testing {

inline const std::set<std::string>& store_status_fields() {
    static const std::set<std::string> fields = {"pending",
                                                 "sent",
                                                 "confirmed",
                                                 "awaiting_receipt",
                                                 "dead",
                                                 "oldest_pending_id",
                                                 "oldest_pending_age_ms",
                                                 "database_bytes",
                                                 "quota_bytes",
                                                 "commits",
                                                 "events_recorded",
                                                 "wal_frames",
                                                 "wal_bytes",
                                                 "checkpoint_pages",
                                                 "checkpoint_failures",
                                                 "purged_rows"};
    return fields;
}

// The keys of a JSON object (empty for anything else).
inline std::set<std::string> keys_of(const nlohmann::json& object) {
    std::set<std::string> keys;
    if (object.is_object()) {
        for (const auto& item : object.items()) keys.insert(item.key());
    }
    return keys;
}

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_STATUS_FIELDS_H
