// Random sequences of store operations against a model of what they must
// do: record (with and without idempotency keys), transact (committed or
// abandoned part way), mark SENT, fail to DEAD, replay, purge DEAD rows and
// reopen. After every step the store must agree with the model: the counts
// per state, each event's state, device and seq, and the envelope bytes
// (the same on every read, through replays and reopening). A new event's
// seq is its device's last plus one, even after purges; a repeated
// idempotency key returns the first event and writes nothing; an abandoned
// transaction leaves no row and uses no seq.
#include <fcntl.h>
#include <fuzzer/FuzzedDataProvider.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "outpost/store.h"
#include "outpost/store_admin.h"
#include "store/outbox.h"
#include "store/store_internal.h"

namespace {

using outpost::EventState;

struct ModelEvent {
    std::string device;
    std::int64_t seq = 0;
    EventState state = EventState::kPending;
    std::string envelope;  // as first read; empty until then
};

struct Model {
    std::map<std::string, ModelEvent> events;      // by eventId
    std::map<std::string, std::int64_t> last_seq;  // by device
    std::map<std::string, std::string> keys;       // idempotency key -> eventId
};

const char* const kDevices[] = {"d0", "d1", "d2"};
const char* const kKeys[] = {"", "", "k0", "k1", "k2"};

class Run {
  public:
    explicit Run(const std::string& directory) : path_(directory + "/store.db") { open(); }

    void step(FuzzedDataProvider& input) {
        switch (input.ConsumeIntegralInRange<int>(0, 6)) {
            case 0:
                record(input);
                break;
            case 1:
                transact(input);
                break;
            case 2:
                finish(input, EventState::kSent);
                break;
            case 3:
                finish(input, EventState::kDead);
                break;
            case 4:
                replay(input);
                break;
            case 5:
                purge_dead();
                break;
            default:
                store_.reset();
                open();
                break;
        }
        check();
    }

  private:
    void open() {
        outpost::StoreOptions options;
        options.gateway_id = "fuzz-gw";
        auto store = outpost::Store::open(path_, options);
        FUZZ_CHECK(store.is_ok(), "the store opens and reopens");
        store_ = std::move(store).value();
        auto epoch = outpost::store::acquire_epoch(outpost::store::core_of(*store_), "fuzz");
        FUZZ_CHECK(epoch.is_ok(), "a lease epoch is acquired");
        epoch_ = *epoch;
    }

    void record(FuzzedDataProvider& input) {
        outpost::Alarm alarm;
        alarm.device_id = kDevices[input.ConsumeIntegralInRange<int>(0, 2)];
        alarm.alarm_type = "FUZZ";
        alarm.idempotency_key = kKeys[input.ConsumeIntegralInRange<int>(0, 4)];
        auto recorded = store_->record_alarm(alarm);
        FUZZ_CHECK(recorded.is_ok(), "a valid alarm is recorded");
        auto known = model_.keys.find(alarm.idempotency_key);
        if (!alarm.idempotency_key.empty() && known != model_.keys.end() &&
            model_.events.count(known->second) != 0) {
            FUZZ_CHECK(recorded->duplicate && recorded->event_id == known->second,
                       "a repeated idempotency key returns the first event");
            return;
        }
        FUZZ_CHECK(!recorded->duplicate, "a new key records a new event");
        add(recorded->event_id, alarm.device_id, recorded->seq);
        if (!alarm.idempotency_key.empty()) model_.keys[alarm.idempotency_key] = recorded->event_id;
    }

    void transact(FuzzedDataProvider& input) {
        const int count = input.ConsumeIntegralInRange<int>(1, 3);
        const int abandon_at = input.ConsumeIntegralInRange<int>(0, 3);  // 3: commit
        auto result = store_->transact([&](outpost::Transaction& tx) {
            for (int i = 0; i < count; ++i) {
                if (i == abandon_at) {
                    return outpost::Status::error(outpost::StatusCode::kRejected, "abandoned");
                }
                outpost::Event event;
                event.event_type = "VALVE_MOVED";
                event.device_id = kDevices[(i + abandon_at) % 3];
                event.aggregate_type = "valve";
                event.aggregate_id = "v" + std::to_string(i);
                event.payload_json = "{\"position\":" + std::to_string(i) + "}";
                auto queued = tx.enqueue(event);
                if (!queued.is_ok()) return queued.status();
            }
            return outpost::Status::ok();
        });
        if (abandon_at < count) {
            FUZZ_CHECK(!result.is_ok(), "an abandoned transaction fails");
            return;
        }
        FUZZ_CHECK(result.is_ok() && result->size() == static_cast<std::size_t>(count),
                   "a committed transaction returns each event");
        for (const auto& recorded : *result)
            add(recorded.event_id, recorded.device_id, recorded.seq);
    }

    void add(const std::string& event_id, const std::string& device, std::int64_t seq) {
        FUZZ_CHECK(model_.events.count(event_id) == 0, "event ids are never reused");
        FUZZ_CHECK(seq == model_.last_seq[device] + 1, "a device's seq is its last plus one");
        model_.last_seq[device] = seq;
        model_.events[event_id] = ModelEvent{device, seq, EventState::kPending, ""};
    }

    // Picks an event of the model, or nothing when it is empty.
    const std::string* pick(FuzzedDataProvider& input) {
        if (model_.events.empty()) return nullptr;
        auto it = model_.events.begin();
        std::advance(it, input.ConsumeIntegralInRange<std::size_t>(0, model_.events.size() - 1));
        return &it->first;
    }

    void finish(FuzzedDataProvider& input, EventState to) {
        const std::string* event_id = pick(input);
        if (event_id == nullptr) return;
        ModelEvent& event = model_.events[*event_id];
        // The publisher reports a failure only for a row it sent: a PENDING one.
        if (to == EventState::kDead && event.state != EventState::kPending) return;
        auto row = outpost::StoreAdmin(*store_).find_event(*event_id);
        FUZZ_CHECK(row.is_ok(), "a modelled event is found");
        auto& core = outpost::store::core_of(*store_);
        if (to == EventState::kSent) {
            FUZZ_CHECK(outpost::store::mark_sent(core, {row->id}, epoch_).is_ok(),
                       "mark_sent succeeds");
            if (event.state == EventState::kPending) event.state = EventState::kSent;
            return;
        }
        auto dead = outpost::store::record_failure(core, row->id, "refused", epoch_, 1);
        FUZZ_CHECK(dead.is_ok() && *dead, "one failure with max_attempts 1 makes a row DEAD");
        event.state = EventState::kDead;
    }

    void replay(FuzzedDataProvider& input) {
        const std::string* event_id = pick(input);
        if (event_id == nullptr) return;
        ModelEvent& event = model_.events[*event_id];
        const outpost::Status status =
            outpost::StoreAdmin(*store_).replay_event(*event_id, "fuzz", "fuzz_store_operations");
        if (event.state == EventState::kPending) {
            FUZZ_CHECK(status.code() == outpost::StatusCode::kInvalidArgument,
                       "replaying a pending event is refused");
            return;
        }
        FUZZ_CHECK(status.is_ok(), "a SENT or DEAD event replays");
        event.state = EventState::kPending;
    }

    void purge_dead() {
        auto purged = outpost::StoreAdmin(*store_).purge_dead();
        FUZZ_CHECK(purged.is_ok(), "purge_dead succeeds");
        std::int64_t removed = 0;
        for (auto it = model_.events.begin(); it != model_.events.end();) {
            if (it->second.state == EventState::kDead &&
                !outpost::StoreAdmin(*store_).find_event(it->first).is_ok()) {
                ++removed;
                it = model_.events.erase(it);
            } else {
                ++it;
            }
        }
        FUZZ_CHECK(removed == *purged, "purge_dead removes exactly the DEAD rows it counts");
    }

    void check() {
        auto stats = store_->stats();
        FUZZ_CHECK(stats.is_ok(), "stats are readable");
        std::int64_t count[3] = {0, 0, 0};
        outpost::StoreAdmin admin(*store_);
        for (auto& [event_id, event] : model_.events) {
            ++count[static_cast<int>(event.state)];
            auto row = admin.find_event(event_id);
            FUZZ_CHECK(row.is_ok(), "every modelled event is in the store");
            FUZZ_CHECK(row->state == event.state, "an event's state is the model's");
            FUZZ_CHECK(row->device_id == event.device && row->seq == event.seq,
                       "an event keeps its device and seq");
            if (event.envelope.empty()) event.envelope = row->envelope;
            FUZZ_CHECK(row->envelope == event.envelope, "an event's envelope never changes");
        }
        FUZZ_CHECK(stats->pending == count[0] && stats->sent == count[1] && stats->dead == count[2],
                   "the store counts per state what the model holds");
    }

    const std::string path_;
    std::unique_ptr<outpost::Store> store_;
    std::int64_t epoch_ = 0;
    Model model_;
};

std::string scratch_directory() {
    static const std::string root = [] {
        std::string pattern = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
        pattern += "/outpost-fuzz-store.XXXXXX";
        FUZZ_CHECK(mkdtemp(pattern.data()) != nullptr, "a scratch directory");
        return pattern;
    }();
    return root;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string directory = scratch_directory() + "/run";
    std::filesystem::remove_all(directory);
    std::filesystem::create_directory(directory);
    FuzzedDataProvider input(data, size);
    {
        Run run(directory);
        for (int steps = 0; steps < 32 && input.remaining_bytes() > 0; ++steps) run.step(input);
    }
    std::filesystem::remove_all(directory);
    return 0;
}
