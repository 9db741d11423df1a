// Promise 5: a broker outage is a pause, not a failure. Nothing is lost,
// nothing goes DEAD, and no row is charged an attempt.
#include <catch2/catch.hpp>

#include "publish_harness.h"

using namespace outpost;
using namespace outpost::testing;

TEST_CASE("a broker outage mid-window loses nothing, kills nothing and charges no attempt") {
    MosquittoConfig config;
    config.persistence = true;  // so the observer's session outlives the restart
    Mosquitto broker(config);
    Subscriber subscriber(broker, "observer", /*persistent=*/true);
    TempDir dir;
    const std::string db = dir.file("outage.db");
    auto store = open_store(db, test_options());
    record_alarms(*store, 3000, 8);

    auto publisher = Publisher::start(*store, test_publisher_options(broker));
    REQUIRE_OK(publisher);
    // Stop the broker while the backlog drains: PUBACKs are outstanding.
    REQUIRE(eventually([&] { return outbox_view(db).sent >= 200; }));
    broker.stop();
    const int64_t sent_at_outage = outbox_view(db).sent;
    INFO("sent when the broker stopped: " << sent_at_outage);
    CHECK(sent_at_outage < 3000);

    // Alarms keep coming while the broker is away; the publisher keeps
    // trying to reconnect and fails.
    record_alarms(*store, 500, 8);
    REQUIRE(eventually([&] { return (*publisher)->status().connect_failures >= 3; }));
    CHECK_FALSE((*publisher)->status().connected);
    CHECK(outbox_view(db).max_attempts == 0);

    broker.start();
    REQUIRE(eventually([&] { return outbox_view(db).sent == 3500; }, std::chrono::seconds(60)));
    REQUIRE(eventually([&] { return subscriber.event_counts().size() == 3500; }));

    auto view = outbox_view(db);
    CHECK(view.dead == 0);
    CHECK(view.pending == 0);
    CHECK(view.max_attempts == 0);
    auto status = (*publisher)->status();
    CHECK(status.reconnects >= 1);
    CHECK(status.refused == 0);
    CHECK(status.lease_epoch == 1);
}
