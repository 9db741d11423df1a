// outpost::StoreAdmin: the operator's facade over the outbox operations
// (outbox.h). Reads open their own read-only connection per call, so the
// object holds nothing but the borrowed Store.
#include "outpost/store_admin.h"

#include <cctype>

#include "common/api_guard.h"
#include "store/outbox.h"
#include "store/store_internal.h"

namespace outpost {

namespace {

// A replay records why and on whose word (store_admin.h).
Status need_reason_and_actor(const std::string& reason, const std::string& actor) {
    if (reason.empty()) {
        return Status::error(StatusCode::kInvalidArgument,
                             "a replay needs a reason: it is recorded with the event");
    }
    if (actor.empty()) {
        return Status::error(StatusCode::kInvalidArgument,
                             "a replay needs an actor (who or what asked for it): it is recorded "
                             "with the event");
    }
    return Status::ok();
}

}  // namespace

const char* event_state_name(EventState state) {
    switch (state) {
        case EventState::kPending:
            return "PENDING";
        case EventState::kSent:
            return "SENT";
        case EventState::kDead:
            return "DEAD";
    }
    return "?";
}

std::optional<EventState> parse_event_state(const std::string& name) {
    std::string upper = name;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (EventState state : {EventState::kPending, EventState::kSent, EventState::kDead}) {
        if (upper == event_state_name(state)) return state;
    }
    return std::nullopt;
}

StoreAdmin::StoreAdmin(Store& store) : store_(store) {}

Result<EventRecord> StoreAdmin::find_event(const std::string& event_id) {
    return guard_api("StoreAdmin::find_event", [&]() -> Result<EventRecord> {
        auto reader = store::core_of(store_).open_reader();
        if (!reader) return reader.status();
        return store::find_event(*reader, event_id);
    });
}

Result<std::vector<EventRecord>> StoreAdmin::list_events(EventState state, int64_t after_id,
                                                         int limit) {
    return guard_api("StoreAdmin::list_events", [&]() -> Result<std::vector<EventRecord>> {
        if (limit < 1 || after_id < 0) {
            return Status::error(StatusCode::kInvalidArgument,
                                 "list_events needs limit >= 1 and after_id >= 0 (got limit " +
                                     std::to_string(limit) + ", after_id " + std::to_string(after_id) +
                                     ")");
        }
        auto reader = store::core_of(store_).open_reader();
        if (!reader) return reader.status();
        return store::list_events(*reader, state, after_id, limit);
    });
}

Status StoreAdmin::replay_event(const std::string& event_id, const std::string& reason,
                                const std::string& actor) {
    return guard_api("StoreAdmin::replay_event", [&]() -> Status {
        Status valid = need_reason_and_actor(reason, actor);
        if (!valid) return valid;
        return store::replay_event(store::core_of(store_), event_id, reason, actor);
    });
}

Result<int64_t> StoreAdmin::replay_dead(const std::string& reason, const std::string& actor) {
    return guard_api("StoreAdmin::replay_dead", [&]() -> Result<int64_t> {
        Status valid = need_reason_and_actor(reason, actor);
        if (!valid) return valid;
        return store::replay_all_dead(store::core_of(store_), reason, actor);
    });
}

Result<int64_t> StoreAdmin::purge_dead() {
    return guard_api("StoreAdmin::purge_dead", [&]() -> Result<int64_t> {
        return store::purge_dead(store::core_of(store_));
    });
}

Result<LeaseRecord> StoreAdmin::lease() {
    return guard_api("StoreAdmin::lease", [&]() -> Result<LeaseRecord> {
        auto reader = store::core_of(store_).open_reader();
        if (!reader) return reader.status();
        return store::read_lease(*reader);
    });
}

}  // namespace outpost
