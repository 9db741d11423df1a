#include "proof/vm/guest/workload.h"

#include <atomic>
#include <thread>
#include <vector>

#include "ingest/client.h"
#include "ingest/protocol.h"
#include "proof/vm/guest/evidence_disk.h"
#include "proof/vm/guest/extents.h"
#include "proof/vm/guest/pace.h"
#include "proof/workload.h"

namespace outpost::torture::vm::guest {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::chrono::seconds kAnswerLimit{120};
constexpr std::chrono::milliseconds kPoll{20};

struct Tally {
    std::atomic<int> acknowledged{0};
    std::atomic<int> failed{0};
    std::atomic<int> evidence_lost{0};
};

// One connection's share of the calls. Evidence lines have the format of
// faults/evidence.h; the host reads the disk records with EvidenceLog, so a
// format drift fails loudly there.
void connection(const WorkloadOptions& options, int index, Clock::time_point start,
                const Channel& channel, EvidenceDisk* disk, Tally& tally) {
    const int calls =
        options.alarms / options.connections + (index < options.alarms % options.connections);
    auto client = ingest::Client::connect(options.socket);
    for (int call = 0; call < calls; ++call) {
        // Call `call` of connection `index` is alarm call * K + index overall.
        wait_for_turn(start, static_cast<double>(call) * options.connections + index, options.rate);
        const std::string token =
            options.prefix + "w" + std::to_string(index) + "c" + std::to_string(call);
        const std::string key = key_for(token, call);
        const std::string started = "S " + token + (key.empty() ? " -" : " k " + key);
        // Recorded before the request leaves: every write the call causes
        // lands in the block log after this record.
        if (disk != nullptr && !disk->append(started)) ++tally.evidence_lost;
        channel.line(started);
        std::string failure = "outcome_unknown";  // no answer: it may have been written
        if (client) {
            auto answer =
                (*client)->call(ingest::raise_alarm_request(alarm_for(token, key)), kAnswerLimit);
            if (answer && answer->value("ok", false)) {
                const std::string line = "A " + token + " " + answer->value("eventId", "") + " " +
                                         answer->value("deviceId", "") + " " +
                                         std::to_string(answer->value("seq", int64_t{0})) +
                                         (answer->value("duplicate", false) ? " 1" : " 0");
                // The disk record first: it is what places the acknowledgement
                // on the block log's time line.
                if (disk != nullptr && !disk->append(line)) ++tally.evidence_lost;
                channel.line(line);
                ++tally.acknowledged;
                continue;
            }
            if (answer && answer->contains("error")) {
                failure = (*answer)["error"].value("code", failure);
            }
        }
        channel.line("F " + token + " " + failure);
        ++tally.failed;
    }
}

// outpostd's status; (re)connects as needed: the daemon closes connections
// that stay idle (ingest.idle_timeout_ms), as the probe does while alarms go in.
nlohmann::json status_of(const std::string& socket, std::unique_ptr<ingest::Client>& client) {
    for (int attempt = 0; attempt < 2; ++attempt) {
        if (!client) {
            auto connected = ingest::Client::connect(socket);
            if (!connected) return nlohmann::json::object();
            client = std::move(*connected);
        }
        auto answer = client->call({{"op", "status"}}, kAnswerLimit);
        if (answer && answer->value("ok", false)) return (*answer)["status"];
        client.reset();
    }
    return nlohmann::json::object();
}

template <typename T>
T field(const nlohmann::json& object, const char* name, T fallback) {
    return object.contains(name) && !object[name].is_null() ? object[name].get<T>() : fallback;
}

}  // namespace

int run_workload(const WorkloadOptions& options, const Channel& channel) {
    const Clock::time_point deadline = Clock::now() + options.limit;
    std::unique_ptr<ingest::Client> probe;
    while (Clock::now() < deadline) {
        auto connected = ingest::Client::connect(options.socket);
        if (connected) {
            probe = std::move(*connected);
            break;
        }
        std::this_thread::sleep_for(kPoll);  // outpostd is still opening its store
    }
    std::string error;
    std::unique_ptr<EvidenceDisk> disk;
    if (!options.device.empty()) disk = EvidenceDisk::open(options.device, &error);
    if (!probe || (!disk && !options.device.empty())) {
        channel.line("vm error " +
                     (probe ? error : "outpostd never listened on " + options.socket));
        return 1;
    }
    Tally tally;
    const Clock::time_point start = Clock::now();
    std::vector<std::thread> threads;
    for (int index = 0; index < options.connections; ++index) {
        threads.emplace_back(connection, std::cref(options), index, start, std::cref(channel),
                             disk.get(), std::ref(tally));
    }
    for (std::thread& thread : threads) thread.join();
    const Clock::time_point recorded = Clock::now();
    // Drained: nothing pending and nothing in flight (every row SENT).
    bool drained = false;
    nlohmann::json status;
    const Clock::time_point drain_deadline = recorded + options.limit;
    while (!drained && Clock::now() < drain_deadline) {
        status = status_of(options.socket, probe);
        drained = field<int64_t>(status, "backlog", -1) == 0 &&
                  field<int64_t>(status, "in_flight", -1) == 0;
        if (!drained) std::this_thread::sleep_for(kPoll);
    }
    const Clock::time_point published = Clock::now();
    auto millis = [](Clock::duration span) {
        return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(span).count());
    };
    channel.line("N acknowledged " + std::to_string(tally.acknowledged.load()));
    channel.line("N failed " + std::to_string(tally.failed.load()));
    channel.line("N record_ms " + millis(recorded - start));
    channel.line("N publish_ms " + millis(published - start));
    const nlohmann::json publisher = status.value("publisher", nlohmann::json::object());
    channel.line("N sent " + std::to_string(field<int64_t>(publisher, "sent", 0)));
    // The writer's own figures: transactions and WAL frames (pages per
    // transaction), and pages copied back by checkpoints.
    const nlohmann::json store = status.value("store", nlohmann::json::object());
    for (const char* name : {"commits", "wal_frames", "checkpoint_pages", "purged_rows"}) {
        channel.line(std::string("N ") + name + " " + std::to_string(field<int64_t>(store, name, 0)));
    }
    report_extents("db", options.store_path, channel);
    report_extents("wal", options.store_path + "-wal", channel);
    report_extents("shm", options.store_path + "-shm", channel);
    if (tally.evidence_lost > 0) channel.line("vm error evidence records not written");
    if (!drained) channel.line("vm error the outbox did not drain: " + status.dump());
    const bool ok = tally.failed == 0 && tally.evidence_lost == 0 && drained;
    channel.line(std::string("vm workload ") + (ok ? "ok" : "failed"));
    return ok ? 0 : 1;
}

}  // namespace outpost::torture::vm::guest
