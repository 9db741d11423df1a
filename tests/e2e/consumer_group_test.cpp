// outpost-consumer in a consumer group: three processes of one group share a
// topic's queues; a third joins mid-stream and is killed by SIGKILL right
// after a COMMIT, before its offset reached the broker. Every eventId must be
// applied exactly once (the killed process's last batch comes again to the
// survivor that takes its queue, and the dedupe record drops it), each
// device's events in seq order (the ledger's seq_anomaly stays empty), and
// each survivor's status line must show the queues moving.
//
// Envelopes go straight to RocketMQ with our producer, sharded by device like
// the bridge, at a paced rate so that consumption is mid-stream when the
// group changes. Needs OUTPOST_ROCKETMQ_ENV (SKIP without it); the ledger is
// PostgreSQL when OUTPOST_POSTGRES_ENV is set, SQLite otherwise.
//
// The counts come from the environment, so that bench/consumer_group runs the
// same scenario longer: OUTPOST_GROUP_DEVICES (16), OUTPOST_GROUP_PER_DEVICE
// (20), OUTPOST_GROUP_RATE (events/s, 16), OUTPOST_GROUP_KILL_AT (the joining
// process's COMMIT that kills it, 3). The figures of the run are printed as
// one JSON line beginning "consumer group run:".
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <cstdlib>
#include <thread>

#include "consumer_harness.h"
#include "rocketmq/producer.h"

using namespace outpost::testing;

namespace {

constexpr int kQueues = 8;

int setting(const char* name, int fallback) {
    const char* value = std::getenv(name);
    return value != nullptr && *value != '\0' ? std::atoi(value) : fallback;
}

// The counters of the last status line a consumer printed (or of its
// "stopped" line once it stopped cleanly), as JSON; empty before the first.
nlohmann::json last_status(const ConsumerProcess& consumer) {
    const std::string log = consumer.full_log();
    std::size_t at = std::string::npos;
    for (const char* marker : {"outpost-consumer info: status {", "outpost-consumer info: stopped {"}) {
        const std::size_t found = log.rfind(marker);
        if (found != std::string::npos && (at == std::string::npos || found > at))
            at = log.find('{', found);
    }
    if (at == std::string::npos) return nlohmann::json::object();
    const std::size_t end = log.find('\n', at);
    nlohmann::json status = nlohmann::json::parse(
        log.substr(at, end == std::string::npos ? std::string::npos : end - at), nullptr, false);
    return status.is_discarded() ? nlohmann::json::object() : status;
}

std::set<std::string> queues_of(const nlohmann::json& status) {
    std::set<std::string> queues;
    if (status.contains("queues")) {
        for (const auto& queue : status["queues"]) queues.insert(queue.get<std::string>());
    }
    return queues;
}

long long counter_of(const nlohmann::json& status, const char* name) {
    return status.contains(name) ? status[name].get<long long>() : 0;
}

// True when the sets are pairwise disjoint and together hold all kQueues queues.
bool partition_all(const std::vector<std::set<std::string>>& sets) {
    std::set<std::string> all;
    std::size_t total = 0;
    for (const auto& set : sets) {
        all.insert(set.begin(), set.end());
        total += set.size();
    }
    return all.size() == static_cast<std::size_t>(kQueues) && total == all.size();
}

// Publishes `events` to `topic` at `rate` events/s from a thread of its own,
// each with its device as the sharding key (one device, one queue: what the
// bridge does). It holds after the first `hold_after` events until resume():
// the rest of the stream then flows while the group changes. join() returns
// what went wrong, empty if nothing did.
class PacedPublisher final {
  public:
    PacedPublisher(std::string topic, std::vector<GatewayEvent> events, int rate,
                   std::size_t hold_after)
        : thread_([this, topic = std::move(topic), events = std::move(events), rate, hold_after] {
              outpost::rocketmq::ProducerOptions options;
              options.name_server_addresses = rocketmq_env()["NAMESRV_ADDR"];
              outpost::rocketmq::Producer producer(options);
              auto start = std::chrono::steady_clock::now();
              std::size_t paced_from = 0;
              for (std::size_t i = 0; i < events.size(); ++i) {
                  if (i == hold_after) {
                      std::unique_lock<std::mutex> lock(mutex_);
                      resumed_.wait(lock, [&] { return resume_; });
                      start = std::chrono::steady_clock::now();
                      paced_from = i;
                  }
                  // The load model, not a wait for a condition: a steady stream.
                  std::this_thread::sleep_until(
                      start + std::chrono::microseconds(
                                  1'000'000LL * static_cast<long long>(i - paced_from) / rate));
                  const GatewayEvent& event = events[i];
                  auto sent = producer.send(
                      topic, "major", event.event_id,
                      sample_envelope_text(event.gateway, event.device, event.seq, event.event_id,
                                           "major"),
                      event.device);
                  if (!sent) {
                      error_ = "send of " + event.event_id + ": " + sent.status().to_string();
                      return;
                  }
                  published_.fetch_add(1);
              }
          }) {}
    ~PacedPublisher() {
        resume();
        if (thread_.joinable()) thread_.join();
    }
    PacedPublisher(const PacedPublisher&) = delete;
    PacedPublisher& operator=(const PacedPublisher&) = delete;

    void resume() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            resume_ = true;
        }
        resumed_.notify_all();
    }
    std::size_t published() const { return published_.load(); }
    std::string join() {
        resume();
        thread_.join();
        return error_;
    }

  private:
    std::atomic<std::size_t> published_{0};
    std::mutex mutex_;
    std::condition_variable resumed_;
    bool resume_ = false;  // guarded by mutex_
    std::string error_;    // written by the thread, read after join()
    std::thread thread_;   // last: starts once the members above exist
};

}  // namespace

TEST_CASE(
    "three consumers of one group, one joining and one killed mid-stream, apply every eventId "
    "exactly once and each device in seq order") {
    const int devices = setting("OUTPOST_GROUP_DEVICES", 16);
    const int per_device = setting("OUTPOST_GROUP_PER_DEVICE", 20);
    const int rate = setting("OUTPOST_GROUP_RATE", 16);
    const int kill_at = setting("OUTPOST_GROUP_KILL_AT", 3);
    REQUIRE(devices > 0);
    REQUIRE(per_device > 0);
    REQUIRE(rate > 0);
    REQUIRE(kill_at > 0);
    require_consumer_built();
    TempDir dir;
    const std::string topic = "it_consumer_group_" + run_id();
    const std::string group = "group_" + run_id();
    create_rocketmq_topic(topic, kQueues);
    const std::optional<ConsumerDatabase> pg = ConsumerDatabase::postgres();
    const ConsumerDatabase db = pg ? *pg : ConsumerDatabase::sqlite(dir);
    INFO("ledger: " << db.label());

    // Each process its own instance name: the client id is host@instance, and
    // two processes with one client id would be one member to the broker.
    auto flags = [&](const std::string& name) {
        std::vector<std::string> flags = consumer_flags(topic, group, db, 8);
        flags.insert(flags.end(), {"--instance-name", name, "--status-interval-ms", "300"});
        return flags;
    };
    ConsumerProcess a(dir, "a", flags("a")), b(dir, "b", flags("b")), c(dir, "c", flags("c"));
    auto logs = [&] { return "a: " + a.log() + " | b: " + b.log() + " | c: " + c.log(); };

    const std::vector<GatewayEvent> events = make_events(1, devices, per_device);
    const std::set<std::string> ids = ids_of(events);
    const auto started = std::chrono::steady_clock::now();
    a.start();
    b.start();
    PacedPublisher publisher(topic, events, rate, events.size() / 3);
    auto applied = [&] { return db.count("SELECT count(*) FROM alarm"); };
    const std::chrono::milliseconds limit(
        std::chrono::seconds(120) + std::chrono::seconds(2 * events.size() / rate));

    // 1. A and B consume the first third of the stream; C joins once a tenth
    //    is applied, and the rest of the stream flows once C holds queues. C
    //    dies by SIGKILL at its kill_at-th COMMIT, before acknowledging it.
    {
        const bool flowing = wait_until(
            [&] { return applied() >= static_cast<long long>(events.size() / 10); }, limit);
        INFO(logs());
        REQUIRE(flowing);
    }
    c.start("consumer.after_commit:" + std::to_string(kill_at));
    std::set<std::string> queues_of_c;
    {
        const bool joined = wait_until(
            [&] {
                queues_of_c = queues_of(last_status(c));
                return !queues_of_c.empty() || !c.running();
            },
            limit);
        INFO(logs());
        REQUIRE(joined);
    }
    publisher.resume();
    // 2. The rebalance is visible in A's and B's status while C is there:
    //    together the three hold every queue once. (C may die first when its
    //    kill_at-th COMMIT comes quickly; then only the takeover is seen.)
    bool saw_three = false;
    wait_until(
        [&] {
            if (!c.running()) return true;
            queues_of_c = queues_of(last_status(c));
            saw_three = partition_all(
                {queues_of(last_status(a)), queues_of(last_status(b)), queues_of_c});
            return saw_three;
        },
        limit);
    const long long changes_a_with_c = counter_of(last_status(a), "queue_changes");
    const long long changes_b_with_c = counter_of(last_status(b), "queue_changes");
    {
        const bool killed = wait_until([&] { return c.killed_by_sigkill(); }, limit);
        INFO(logs());
        REQUIRE(killed);
    }
    const auto killed_at = std::chrono::steady_clock::now();
    const std::size_t published_at_kill = publisher.published();
    // 3. A and B take C's queues back (once C's broker locks lapse).
    {
        const bool taken_over = wait_until(
            [&] { return partition_all({queues_of(last_status(a)), queues_of(last_status(b))}); },
            limit);
        INFO(logs());
        REQUIRE(taken_over);
    }
    const auto taken_over_at = std::chrono::steady_clock::now();
    {
        const std::string failed = publisher.join();
        INFO(failed);
        REQUIRE(failed.empty());
    }
    {
        const bool all =
            wait_until([&] { return applied() >= static_cast<long long>(ids.size()); }, limit);
        INFO(logs());
        REQUIRE(all);
    }
    const auto done_at = std::chrono::steady_clock::now();
    // A clean stop prints the final counters ("stopped {...}").
    a.terminate();
    b.terminate();
    const nlohmann::json final_a = last_status(a), final_b = last_status(b);
    INFO("a: " << final_a.dump() << " | b: " << final_b.dump() << " | " << logs());

    // Every eventId exactly once.
    const std::map<std::string, int> rows = db.alarm_rows();
    CHECK(rows.size() == ids.size());
    std::size_t twice = 0, missing = 0, foreign = 0;
    for (const std::string& id : ids) {
        auto row = rows.find(id);
        if (row == rows.end()) ++missing;
        else if (row->second != 1) ++twice;
    }
    for (const auto& [id, count] : rows) foreign += ids.count(id) == 0 ? 1 : 0;
    CHECK(missing == 0);
    CHECK(twice == 0);
    CHECK(foreign == 0);
    CHECK(db.count("SELECT count(*) FROM processed_event") == static_cast<long long>(ids.size()));
    // Each device's events were applied in seq order: the ledger checks every
    // event against the device's last applied seq and records any gap or late
    // arrival; none, and every device ends at its last seq.
    CHECK(db.query("SELECT kind || ' ' || device_id || ' ' || expected_seq || ' ' || seq FROM "
                   "seq_anomaly ORDER BY id") == "");
    CHECK(db.count("SELECT count(*) FROM device_state WHERE last_seq = " +
                   std::to_string(per_device)) == devices);
    CHECK(db.count("SELECT count(*) FROM quarantine") == 0);
    // C's last batch was committed, not acknowledged: it came again to the
    // survivor that took its queue, whose dedupe record dropped it.
    const long long duplicates =
        counter_of(final_a, "duplicates") + counter_of(final_b, "duplicates");
    CHECK(duplicates > 0);
    // The survivors' status showed the group changing: C's arrival (when C
    // lived long enough to be seen) and C's queues coming back to them (step
    // 3; their final lines are not compared: the first to stop hands its
    // queues to the other).
    if (saw_three) {
        CHECK(counter_of(final_a, "queue_changes") > changes_a_with_c);
        CHECK(counter_of(final_b, "queue_changes") > changes_b_with_c);
    }
    CHECK(counter_of(final_a, "queue_changes") >= 2);
    CHECK(counter_of(final_b, "queue_changes") >= 2);

    using seconds = std::chrono::duration<double>;
    nlohmann::json figures = {
        {"ledger", db.label()},
        {"events", ids.size()},
        {"devices", devices},
        {"rate_per_s", rate},
        {"seconds", seconds(done_at - started).count()},
        {"published_at_kill", published_at_kill},
        {"takeover_s", seconds(taken_over_at - killed_at).count()},
        {"duplicates_absorbed", duplicates},
        {"queue_changes", {{"a", counter_of(final_a, "queue_changes")},
                           {"b", counter_of(final_b, "queue_changes")}}},
        {"applied",
         {{"a", counter_of(final_a, "applied")},
          {"b", counter_of(final_b, "applied")},
          {"c", counter_of(last_status(c), "applied")}}},
        {"c_seen_with_a_and_b", saw_three}};
    std::printf("# consumer group run: %s\n", figures.dump().c_str());
}
