// Operator actions on a store: look an event up, list events by state,
// replay DEAD events, purge them, and read who took the publisher lease last.
// outpostctl is built on this and nothing else; a gateway's own maintenance
// screen can be too.
//
// Replays and purges are write transactions in the store's group-commit
// queue: they are durable when they return OK, they are safe while a
// publisher runs on the same Store or in another process, and a publisher
// picks replayed events up at its next scan. Reads use a read-only connection
// of their own and never wait for writers.
//
// Cost: the schema has no index on outbox.state or event_id (a flash page
// rewritten per alarm is wear; schema/001_initial.sql). find_event bisects
// the rowids instead (event ids grow with them; schema/003_outbox_summary.sql),
// a few dozen page reads on a full store. list_events walks rows in id order
// until it has `limit` rows in the state asked for: cheap for PENDING and
// SENT, a walk over the table for DEAD rows when there are few.
#ifndef OUTPOST_STORE_ADMIN_H
#define OUTPOST_STORE_ADMIN_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "outpost/export.h"
#include "outpost/status.h"
#include "outpost/store.h"

namespace outpost {

// Where an outbox event is in its life. PENDING -> SENT on the broker's
// PUBACK; PENDING -> DEAD after too many message-level refusals; an operator
// replay moves DEAD (or SENT) back to PENDING. The numbers are what the
// database stores (outbox.state): they never change.
enum class EventState { kPending = 0, kSent = 1, kDead = 2 };

// "PENDING", "SENT" or "DEAD".
OUTPOST_API const char* event_state_name(EventState state);

// The state named `name` in any letter case ("dead", "DEAD"); nullopt for
// anything else.
OUTPOST_API std::optional<EventState> parse_event_state(const std::string& name);

// One failure episode of an event that an operator replay ended
// (EventRecord::earlier_failures).
struct EarlierFailure {
    int64_t attempts = 0;        // message-level failures before the replay
    std::string error;           // the last of them; empty if none
    int64_t failed_at_ms = 0;    // wall clock of that failure (Unix ms); 0: unknown
    int64_t replayed_at_ms = 0;  // wall clock of the replay that ended it
    std::string reason;          // the replay's reason
    std::string actor;           // who asked for the replay
};

// One outbox event as an operator sees it.
struct EventRecord {
    int64_t id = 0;        // commit order; the cursor of list_events
    std::string event_id;  // UUIDv7; the same across retries and replays
    std::string device_id;
    int64_t seq = 0;           // per device, from 1
    std::string event_type;    // ALARM_RAISED, or the application's type
    std::string topic_suffix;  // "alarm/<deviceId>" or "event/<deviceId>"
    std::string envelope;      // the exact bytes published (the same on every read)
    EventState state = EventState::kPending;
    int64_t attempts = 0;        // message-level failures since the last replay
    std::string last_error;      // why the last attempt failed; empty if none did
    int64_t replay_count = 0;    // operator replays so far
    int64_t replayed_at_ms = 0;  // wall clock of the last replay (Unix ms); 0: never
    std::string replay_reason;   // the reason given for the last replay
    std::string replay_actor;    // who or what asked for the last replay; empty: never
                                 // replayed, or replayed before schema 2 recorded it
    // SENT and a receipt from the bridge said RocketMQ stored it.
    bool confirmed = false;
    // Wall clock (Unix ms) of the last message-level failure (a broker's
    // refusal or a bridge's rejection); 0: none recorded (or before schema 5).
    int64_t failed_at_ms = 0;
    // What earlier replays reset, oldest first, the last kKeptFailures only.
    std::vector<EarlierFailure> earlier_failures;
    static constexpr int kKeptFailures = 4;
};

// The publisher lease as the database records it: who acquired it last.
// Whether that publisher still runs is for its lock file (the kernel drops the
// lock when the process dies) or the daemon's status to say.
struct LeaseRecord {
    int64_t epoch = 0;    // acquisitions so far; 0 when no publisher ever ran
    std::string holder;   // "pid N on HOST, boot B" of the last holder; empty if none
    std::string boot_id;  // the kernel boot id it was acquired in
};

class OUTPOST_API StoreAdmin final {
  public:
    // Borrows `store`, which must outlive this object. Thread-safe as the
    // Store is: every call opens what it needs and keeps nothing.
    explicit StoreAdmin(Store& store);

    // The event with `event_id`, in any state. Errors: kNotFound (no such
    // event, or it was purged), kIoError / kCorruption / kBusy from the read.
    Result<EventRecord> find_event(const std::string& event_id);

    // Up to `limit` events in `state` with id > `after_id`, oldest first.
    // Start with after_id 0; for the next page pass the last returned id.
    // Fewer than `limit` events means there are no more right now.
    // Errors: kInvalidArgument (limit < 1, after_id < 0), read errors as above.
    Result<std::vector<EventRecord>> list_events(EventState state, int64_t after_id, int limit);

    // Moves the DEAD or SENT event `event_id` back to PENDING: the same
    // eventId and envelope are published again. Attempts restart at 0; the
    // replay count grows by one and the replay time (wall clock), `reason`
    // (why) and `actor` (who or what asked: "outpostctl by alice (uid 1000)",
    // "maintenance screen") are recorded; the attempts, last error and
    // failure time it resets join EventRecord::earlier_failures. Errors: kInvalidArgument (empty
    // reason or actor, or the event is already PENDING), kNotFound, and the
    // write errors of Store::record_alarm (then nothing changed, except after
    // kOutcomeUnknown: read it back).
    Status replay_event(const std::string& event_id, const std::string& reason,
                        const std::string& actor);

    // replay_event for every DEAD event, in one transaction; returns how many.
    // Errors as replay_event (0 DEAD events is not an error).
    Result<int64_t> replay_dead(const std::string& reason, const std::string& actor);

    // Deletes every DEAD event and its alarm record, in one transaction;
    // returns how many. The event with the highest id is kept whatever its
    // state (SQLite would reuse its id, and publishers rely on ids only
    // growing); a later purge takes it. Errors: the write errors of
    // Store::record_alarm.
    Result<int64_t> purge_dead();

    // Who acquired the publisher lease last. Errors: read errors as above.
    Result<LeaseRecord> lease();

  private:
    Store& store_;
};

}  // namespace outpost

#endif  // OUTPOST_STORE_ADMIN_H
