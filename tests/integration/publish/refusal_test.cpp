// Message-level failures: the broker refuses one device's topic (ACL, v5
// PUBACK 0x87) or a payload is larger than the broker accepts. Those rows,
// and only those, go DEAD after max_attempts with the reason in last_error.
#include <catch2/catch.hpp>

#include "publish_harness.h"

using namespace outpost;
using namespace outpost::testing;

TEST_CASE("a publish the broker refuses (ACL, 0x87) moves to DEAD after max_attempts") {
    Mosquitto broker(gateway_acl_config("gw-test", "outpost/gw-test/alarm/forbidden-0"));
    Subscriber subscriber(broker, "observer", false, "observer", "observer-secret");
    TempDir dir;
    const std::string db = dir.file("acl.db");
    auto store = open_store(db, test_options());
    auto allowed = record_alarms(*store, 40, 4, 1);
    auto forbidden = record_alarms(*store, 5, 1, 1, "forbidden-");
    auto later = record_alarms(*store, 40, 4, 1);

    PublisherOptions options = test_publisher_options(broker);
    options.endpoint.username = "gw-test";
    options.endpoint.password = "gateway-secret";
    options.max_attempts = 3;
    auto publisher = Publisher::start(*store, options);
    REQUIRE_OK(publisher);

    REQUIRE(eventually([&] { return outbox_view(db).dead == 5; }));
    REQUIRE(eventually([&] { return outbox_view(db).sent == 80; }));
    REQUIRE(eventually([&] { return subscriber.event_counts().size() == 80; }));

    RawSqlite raw(db, SQLITE_OPEN_READONLY);
    for (const auto& event : forbidden) {
        INFO(event.event_id);
        const std::string where = " FROM outbox WHERE event_id = '" + event.event_id + "'";
        CHECK(raw.integer("SELECT state" + where) == 2);
        CHECK(raw.integer("SELECT attempts" + where) == 3);
        const std::string error = raw.text("SELECT last_error" + where);
        CHECK(error.find("0x87") != std::string::npos);
        CHECK(error.find("Not authorized") != std::string::npos);
    }
    auto counts = subscriber.event_counts();
    for (const auto& event : forbidden) CHECK(counts.count(event.event_id) == 0);
    for (const auto& event : allowed) CHECK(counts[event.event_id] == 1);
    for (const auto& event : later) CHECK(counts[event.event_id] == 1);

    auto status = (*publisher)->status();
    CHECK(status.dead == 5);
    CHECK(status.refused == 15);
    CHECK(status.reconnects == 0);  // a refusal is not a connection failure
}

TEST_CASE("a payload above the broker's maximum packet size moves to DEAD, the rest flows") {
    MosquittoConfig config;
    config.extra = "max_packet_size 1000\n";
    Mosquitto broker(config);
    Subscriber subscriber(broker, "observer");
    TempDir dir;
    const std::string db = dir.file("big.db");
    auto store = open_store(db, test_options());
    record_alarms(*store, 10, 2, 1);
    Alarm big = sample_alarm("big-0");
    big.text = std::string(900, 'x');
    auto oversized = store->record_alarm(big);
    REQUIRE_OK(oversized);
    record_alarms(*store, 10, 2, 1);

    PublisherOptions options = test_publisher_options(broker);
    options.max_attempts = 2;
    auto publisher = Publisher::start(*store, options);
    REQUIRE_OK(publisher);
    REQUIRE(eventually([&] { return outbox_view(db).dead == 1; }));
    REQUIRE(eventually([&] { return outbox_view(db).sent == 20; }));

    RawSqlite raw(db, SQLITE_OPEN_READONLY);
    const std::string error =
        raw.text("SELECT last_error FROM outbox WHERE event_id = '" + oversized->event_id + "'");
    CHECK(error.find("payload too large") != std::string::npos);
    REQUIRE(eventually([&] { return subscriber.event_counts().size() == 20; }));
    CHECK(subscriber.event_counts().count(oversized->event_id) == 0);
    CHECK((*publisher)->status().connected);
}

TEST_CASE("a refused row holds back its device's later rows until its retry succeeds") {
    const std::string open_acl =
        "pattern write outpost/%u/#\n"
        "\n"
        "user observer\n"
        "topic read #\n";
    MosquittoConfig config;
    config.allow_anonymous = false;
    config.users = {{"gw-test", "gateway-secret"}, {"observer", "observer-secret"}};
    config.acl = open_acl + "\nuser gw-test\ntopic deny outpost/gw-test/alarm/flaky-0\n";
    Mosquitto broker(config);
    Subscriber subscriber(broker, "observer", false, "observer", "observer-secret");
    TempDir dir;
    const std::string db = dir.file("held.db");
    auto store = open_store(db, test_options());
    auto refused_first = record_alarms(*store, 3, 1, 1, "flaky-");
    record_alarms(*store, 20, 4, 1);

    PublisherOptions options = test_publisher_options(broker);
    options.endpoint.username = "gw-test";
    options.endpoint.password = "gateway-secret";
    options.max_attempts = 1000;  // transient: must never go DEAD here
    auto publisher = Publisher::start(*store, options);
    REQUIRE_OK(publisher);
    REQUIRE(eventually([&] { return (*publisher)->status().refused >= 3; }));

    // Recorded while the device is blocked: they must wait, unpublished.
    auto held_back = record_alarms(*store, 3, 1, 1, "flaky-");
    const uint64_t refused_before = (*publisher)->status().refused;
    REQUIRE(eventually([&] { return (*publisher)->status().refused >= refused_before + 5; }));
    REQUIRE(eventually([&] { return outbox_view(db).sent == 20; }));

    broker.replace_acl(open_acl);  // the refusal was transient
    REQUIRE(eventually([&] { return outbox_view(db).sent == 26; }));
    REQUIRE(eventually([&] { return subscriber.event_counts().size() == 26; }));

    RawSqlite raw(db, SQLITE_OPEN_READONLY);
    auto attempts_of = [&](const RecordedEvent& event) {
        return raw.integer("SELECT attempts FROM outbox WHERE event_id = '" + event.event_id + "'");
    };
    CHECK(attempts_of(refused_first.front()) >= 2);
    for (const auto& event : held_back) CHECK(attempts_of(event) == 0);
    CHECK(outbox_view(db).dead == 0);

    std::vector<int64_t> flaky_seqs;
    for (const auto& message : subscriber.messages()) {
        if (message.topic == "outpost/gw-test/alarm/flaky-0") {
            flaky_seqs.push_back(message.envelope.value("seq", int64_t{0}));
        }
    }
    CHECK(flaky_seqs == std::vector<int64_t>{1, 2, 3, 4, 5, 6});
}
