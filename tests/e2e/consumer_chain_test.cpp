// The whole chain down to the consumer's database: a real gateway (Store +
// Publisher) -> mosquitto -> outpost-bridge -> RocketMQ -> outpost-consumer
// (consumer, RocketMQ's official Java client) -> SQLite or PostgreSQL.
// Redeliveries of every kind must leave exactly one business row per
// eventId; a consumer killed around its COMMIT loses nothing and applies
// nothing twice; seq gaps and late arrivals are reported.
//
// Needs OUTPOST_ROCKETMQ_ENV (SKIP without it); PostgreSQL is added when
// OUTPOST_POSTGRES_ENV names the env file of scripts/postgres.sh start DIR.
#include <cstdlib>
#include <regex>

#include "consumer_harness.h"
#include "rocketmq/producer.h"

using namespace outpost::testing;

namespace {

constexpr std::chrono::seconds kApplyLimit{120};

std::vector<ConsumerDatabase> databases(const TempDir& dir) {
    std::vector<ConsumerDatabase> list = {ConsumerDatabase::sqlite(dir)};
    if (auto pg = ConsumerDatabase::postgres()) list.push_back(*pg);
    return list;
}

// Every id of `ids` has exactly one alarm row, and no other row exists.
void check_exactly_once(const ConsumerDatabase& db, const std::set<std::string>& ids) {
    const std::map<std::string, int> rows = db.alarm_rows();
    INFO("database " << db.label());
    CHECK(rows.size() == ids.size());
    for (const std::string& id : ids) {
        auto row = rows.find(id);
        INFO("eventId " << id);
        CHECK(row != rows.end());
        if (row != rows.end()) CHECK(row->second == 1);
    }
    for (const auto& [id, count] : rows) {
        INFO("row for eventId " << id);
        CHECK(ids.count(id) == 1);
    }
    CHECK(db.count("SELECT count(*) FROM processed_event") == static_cast<long long>(ids.size()));
}

bool all_applied(const ConsumerDatabase& db, std::size_t n) {
    return db.count("SELECT count(*) FROM alarm") >= static_cast<long long>(n);
}

std::size_t occurrences(const std::string& text, const std::string& needle) {
    std::size_t count = 0;
    for (std::size_t at = text.find(needle); at != std::string::npos;
         at = text.find(needle, at + 1))
        ++count;
    return count;
}

// Sum of N over the consumer's "dropped N redelivered event(s)" lines.
long long redelivered_dropped(const std::string& log) {
    static const std::regex line("dropped ([0-9]+) redelivered");
    long long total = 0;
    for (auto it = std::sregex_iterator(log.begin(), log.end(), line); it != std::sregex_iterator();
         ++it) {
        total += std::atoll((*it)[1].str().c_str());
    }
    return total;
}

// The bridge's configuration for a Chain. A fault point counts sends, and
// one batch is one send: an armed bridge sends at most 4 messages at a time
// so that its Nth send comes within a test's few dozen alarms, however
// fast the alarms arrive.
nlohmann::json chain_bridge_config(const std::string& mqtt_uri, const std::string& name,
                                   const std::string& topic, const std::string& status_path,
                                   bool armed) {
    nlohmann::json config =
        bridge_config(mqtt_uri, "bridge-" + name, topic, topic + "_q", status_path);
    if (armed) config["batch"] = {{"max_messages", 4}};
    return config;
}

// The chain up to RocketMQ for one test: mosquitto, a topic of its own, and
// the bridge between them (armed with OUTPOST_FAULT=`bridge_fault` if given).
struct Chain {
    explicit Chain(const std::string& name, const char* bridge_fault = nullptr)
        : topic("it_consumer_" + name),
          bridge(dir, "bridge",
                 chain_bridge_config(broker.uri(), name, topic, dir.file("status.json"),
                                     bridge_fault != nullptr)) {
        require_consumer_built();
        create_rocketmq_topic(topic, 4);
        if (bridge_fault != nullptr) ::setenv("OUTPOST_FAULT", bridge_fault, 1);
        bridge.start();
        ::unsetenv("OUTPOST_FAULT");
    }
    TempDir dir;
    Mosquitto broker;
    const std::string topic;
    BridgeProcess bridge;
};

}  // namespace

TEST_CASE("every alarm a gateway records is applied exactly once, in SQLite and in PostgreSQL") {
    Chain chain("once_" + run_id());
    const TempDir& dir = chain.dir;
    const std::string& topic = chain.topic;
    const std::vector<ConsumerDatabase> dbs = databases(dir);
    std::vector<std::unique_ptr<ConsumerProcess>> consumers;
    for (const ConsumerDatabase& db : dbs) {
        consumers.push_back(std::make_unique<ConsumerProcess>(
            dir, "consumer-" + db.label(),
            consumer_flags(topic, "once_" + db.label() + "_" + run_id(), db)));
        consumers.back()->start();
    }
    Gateway gateway(dir, "gw-once", chain.broker.uri());
    const std::vector<outpost::RecordedEvent> events = gateway.record(4, 15);
    REQUIRE(gateway.drained(std::chrono::seconds(60)));
    for (std::size_t i = 0; i < dbs.size(); ++i) {
        const bool applied =
            wait_until([&] { return all_applied(dbs[i], events.size()); }, kApplyLimit);
        INFO(dbs[i].label() << " consumer log: " << consumers[i]->log()
                            << " | bridge log: " << chain.bridge.log());
        REQUIRE(applied);
        check_exactly_once(dbs[i], ids_of(events));
        CHECK(dbs[i].count("SELECT count(*) FROM device_state WHERE last_seq = 15") == 4);
        CHECK(dbs[i].count("SELECT count(*) FROM seq_anomaly") == 0);
        CHECK(dbs[i].count("SELECT count(*) FROM quarantine") == 0);
        // The business row carries the gateway's fields.
        CHECK(dbs[i].query("SELECT device_id || ' ' || seq || ' ' || severity || ' ' || unit FROM "
                           "alarm WHERE event_id = '" +
                           events[5].event_id + "'") == "dev-1 2 major C\n");
    }
}

TEST_CASE("redeliveries of every kind leave exactly one business row per eventId") {
    // 1. The bridge dies by SIGKILL after RocketMQ's SEND_OK for its 5th
    //    message, before the MQTT PUBACK: mosquitto redelivers, RocketMQ
    //    stores that event twice.
    Chain chain("redeliver_" + run_id(), "bridge.after_send:5");
    const TempDir& dir = chain.dir;
    const std::string& topic = chain.topic;
    BridgeProcess& bridge = chain.bridge;
    const std::string group = "redeliver_" + run_id();
    const ConsumerDatabase db = ConsumerDatabase::sqlite(dir);
    // 2. The consumer dies by SIGKILL after its second COMMIT, before the
    //    offset reached the broker: RocketMQ redelivers that batch.
    ConsumerProcess consumer(dir, "consumer", consumer_flags(topic, group, db, 4));
    consumer.start("consumer.after_commit:2");
    Gateway gateway(dir, "gw-redeliver", chain.broker.uri());
    const std::vector<outpost::RecordedEvent> events = gateway.record(4, 10);
    const std::set<std::string> ids = ids_of(events);
    {
        const bool bridge_killed =
            wait_until([&] { return !bridge.running(); }, std::chrono::seconds(60));
        INFO("bridge log: " << bridge.log());
        REQUIRE(bridge_killed);
        bridge.start();
    }
    {
        const bool consumer_killed =
            wait_until([&] { return consumer.killed_by_sigkill(); }, kApplyLimit);
        INFO("consumer log: " << consumer.log());
        REQUIRE(consumer_killed);
        consumer.start();
    }
    REQUIRE(gateway.drained(std::chrono::seconds(60)));
    {
        const bool applied = wait_until([&] { return all_applied(db, ids.size()); }, kApplyLimit);
        INFO("consumer log: " << consumer.log());
        REQUIRE(applied);
    }
    const std::vector<StoredMessage> stored = messages_with_keys(topic, ids);
    INFO("RocketMQ holds " << stored.size() << " messages for " << ids.size() << " events");
    CHECK(stored.size() > ids.size());  // the bridge's repeat is there
    // 3. A forced reset of the group's offsets to the beginning: every
    //    message comes again.
    // SIGTERM is a clean stop: exit 0, as the reference page says.
    CHECK(consumer.terminate() == 0);
    const std::string reset = mqadmin("resetOffsetByTime -g " + group + " -t " + topic + " -s 0");
    INFO("resetOffsetByTime: " << one_line(reset));
    consumer.start();
    const bool replayed = wait_until(
        [&] {
            return redelivered_dropped(consumer.full_log()) >=
                   static_cast<long long>(stored.size());
        },
        kApplyLimit);
    INFO("consumer log: " << consumer.log());
    CHECK(replayed);
    check_exactly_once(db, ids);
    CHECK(db.count("SELECT count(*) FROM seq_anomaly") == 0);
    CHECK(occurrences(consumer.full_log(), "OUTPOST_FAULT consumer.after_commit:2 reached") == 1);
}

TEST_CASE(
    "a consumer killed before or after its COMMIT, before its offset ack, loses nothing and "
    "applies nothing twice") {
    // Catch2 runs the test case once per section: a topic of its own for each
    // run, so one database's consumer never sees the other run's events.
    static int pass = 0;
    Chain chain("kill_" + run_id() + "_" + std::to_string(pass++));
    const TempDir& dir = chain.dir;
    const std::string& topic = chain.topic;
    for (const ConsumerDatabase& db : databases(dir)) {
        DYNAMIC_SECTION("database " << db.label()) {
            ConsumerProcess consumer(
                dir, "consumer-" + db.label(),
                consumer_flags(topic, "kill_" + db.label() + "_" + run_id(), db, 3));
            const std::vector<std::string> faults = {
                "consumer.after_commit:1", "consumer.before_commit:2", "consumer.after_commit:2"};
            consumer.start(faults[0]);
            Gateway gateway(dir, "gw-kill-" + db.label(), chain.broker.uri());
            const std::vector<outpost::RecordedEvent> events = gateway.record(3, 12);
            const std::set<std::string> ids = ids_of(events);
            for (std::size_t k = 0; k < faults.size(); ++k) {
                const bool killed =
                    wait_until([&] { return consumer.killed_by_sigkill(); }, kApplyLimit);
                INFO("waiting for " << faults[k] << "; consumer log: " << consumer.log());
                REQUIRE(killed);
                consumer.start(k + 1 < faults.size() ? faults[k + 1] : "");
            }
            REQUIRE(gateway.drained(std::chrono::seconds(60)));
            const bool applied =
                wait_until([&] { return all_applied(db, ids.size()); }, kApplyLimit);
            INFO("consumer log: " << consumer.log());
            REQUIRE(applied);
            consumer.terminate();
            const std::string log = consumer.full_log();
            for (const std::string& fault : faults) {
                CHECK(occurrences(log, "OUTPOST_FAULT " + fault + " reached") == 1);
            }
            check_exactly_once(db, ids);
            // An after_commit kill leaves applied batches unacknowledged: they came again.
            CHECK(redelivered_dropped(log) > 0);
            CHECK(db.count("SELECT count(*) FROM seq_anomaly") == 0);
        }
    }
}

TEST_CASE(
    "a missing or late seq is reported, and an unknown schemaVersion is quarantined after "
    "retries") {
    Chain chain("seq_" + run_id());
    const TempDir& dir = chain.dir;
    const std::string& topic = chain.topic;
    BridgeProcess& bridge = chain.bridge;
    const ConsumerDatabase db = ConsumerDatabase::sqlite(dir);
    std::vector<std::string> flags = consumer_flags(topic, "seq_" + run_id(), db, 1);
    flags.insert(flags.end(), {"--version-retries", "2"});
    ConsumerProcess consumer(dir, "consumer", flags);
    consumer.start();
    // A gateway whose events reach the bridge as 1, 2, 4, 3, 5 (what two
    // bridge instances can do to one device, or a gateway that lost a row).
    std::vector<GatewayEvent> events;
    for (std::int64_t seq : {1, 2, 4, 3, 5})
        events.push_back({"gw-seq", "dev-1", seq, new_event_id()});
    {
        GatewayPublisher gateway(chain.broker.uri(), "gw-seq-" + run_id());
        REQUIRE_NOTHROW(gateway.publish_all(outgoing(events)));
    }
    // A schemaVersion-2 envelope from a newer gateway and bridge, straight to
    // RocketMQ on the same device's queue, then one more valid event behind it.
    nlohmann::json newer = sample_envelope("gw-seq", "dev-1", 6, new_event_id());
    newer["schemaVersion"] = 2;
    const GatewayEvent after{"gw-seq", "dev-1", 7, new_event_id()};
    {
        const bool forwarded = wait_until(
            [&] { return bridge.counter("forwarded") >= events.size(); }, std::chrono::seconds(60));
        INFO("bridge log: " << bridge.log());
        REQUIRE(forwarded);
        outpost::rocketmq::ProducerOptions options;
        options.name_server_addresses = rocketmq_env()["NAMESRV_ADDR"];
        outpost::rocketmq::Producer producer(options);
        REQUIRE(producer.send(topic, "critical", newer["eventId"].get<std::string>(), newer.dump(),
                              "dev-1"));
        REQUIRE(
            producer.send(topic, "critical", after.event_id, after.outgoing().payload, "dev-1"));
    }
    const bool applied =
        wait_until([&] { return all_applied(db, events.size() + 1); }, kApplyLimit);
    INFO("consumer log: " << consumer.log());
    REQUIRE(applied);
    CHECK(db.count("SELECT count(*) FROM alarm") == 6);
    CHECK(db.count("SELECT last_seq FROM device_state WHERE device_id = 'dev-1'") == 7);
    CHECK(
        db.query("SELECT kind || ' ' || expected_seq || ' ' || seq FROM seq_anomaly ORDER BY id") ==
        "gap 3 4\nlate 5 3\ngap 6 7\n");
    const std::string log = consumer.full_log();
    CHECK(log.find("seq gap: device gw-seq/dev-1 expected seq 3, got 4") != std::string::npos);
    CHECK(log.find("seq late: device gw-seq/dev-1 already at seq 4, got seq 3") !=
          std::string::npos);
    CHECK(occurrences(log, "schemaVersion 2 is not understood by this consumer") >=
          3);  // 2 retries + quarantine
    CHECK(db.count("SELECT count(*) FROM quarantine WHERE reason LIKE 'schemaVersion 2 is not "
                   "understood%' "
                   "AND message_keys = '" +
                   newer["eventId"].get<std::string>() + "'") == 1);
}
