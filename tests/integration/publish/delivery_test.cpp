// The publisher against a real mosquitto: what arrives, in which order, and
// that the wall clock has no say in it.
#include <catch2/catch.hpp>

#include "publish_harness.h"
#include "store/outbox.h"
#include "store_fixture.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

// Wall time from a ManualClock the test can jump; boot time and boot id
// from the machine, so the publisher's timers run.
class JumpingWallClock final : public Clock {
  public:
    int64_t wall_ms() const override { return manual.wall_ms(); }
    int64_t boot_ms() const override { return system_clock().boot_ms(); }
    std::string boot_id() const override { return system_clock().boot_id(); }
    ManualClock manual;
};

// The machine's boot clock and boot id, `lag_ms` behind: alarms recorded
// through it look that much older to a publisher on the machine's clock.
class LaggingBootClock final : public Clock {
  public:
    explicit LaggingBootClock(int64_t lag_ms) : lag_ms_(lag_ms) {}
    int64_t wall_ms() const override { return system_clock().wall_ms(); }
    int64_t boot_ms() const override { return system_clock().boot_ms() - lag_ms_; }
    std::string boot_id() const override { return system_clock().boot_id(); }

  private:
    const int64_t lag_ms_;
};

// True once `subscriber` received a status message with this state.
bool saw_status(const Subscriber& subscriber, const std::string& state) {
    for (const auto& message : subscriber.messages()) {
        if (message.topic == "outpost/gw-test/status" &&
            message.envelope.value("state", "") == state) {
            return true;
        }
    }
    return false;
}

}  // namespace

TEST_CASE("every recorded alarm arrives once with its eventId and the stored envelope as payload") {
    Mosquitto broker;
    Subscriber subscriber(broker, "observer");
    TempDir dir;
    const LaggingBootClock recording_clock(5000);
    auto store = open_store(dir.file("d.db"), test_options(&recording_clock));
    auto before = record_alarms(*store, 150, 5, 1);  // a backlog before the publisher starts

    auto publisher = Publisher::start(*store, test_publisher_options(broker));
    REQUIRE_OK(publisher);
    auto after = record_alarms(*store, 150, 5, 1);  // and live traffic while it runs

    REQUIRE(eventually([&] { return subscriber.event_counts().size() == 300; }));
    REQUIRE(eventually([&] { return outbox_view(dir.file("d.db")).sent == 300; }));
    auto envelopes = stored_envelopes(*store);
    auto messages = subscriber.messages();
    std::map<std::string, int> seen;
    for (const auto& message : messages) {
        if (message.topic.find("/alarm/") == std::string::npos) continue;
        const std::string event_id = message.envelope.value("eventId", "");
        seen[event_id]++;
        INFO(event_id);
        REQUIRE(envelopes.count(event_id) == 1);
        CHECK(message.payload == envelopes[event_id]);
        CHECK(message.topic ==
              "outpost/gw-test/alarm/" + message.envelope.value("deviceId", std::string()));
    }
    for (const auto& event : before) CHECK(seen[event.event_id] == 1);
    for (const auto& event : after) CHECK(seen[event.event_id] == 1);

    auto status = (*publisher)->status();
    CHECK(status.lease_held);
    CHECK(status.lease_epoch == 1);
    CHECK(status.connected);
    CHECK(status.sent == 300);
    CHECK(status.dead == 0);
    // Every alarm was recorded 5 s before its PUBACK by the store's clock,
    // less the half millisecond its envelope's whole milliseconds may hide.
    CHECK(status.commit_to_ack_p50_us >= 4'999'000);
    CHECK(status.commit_to_ack_p99_us >= 4'999'000);
    REQUIRE(eventually([&] { return (*publisher)->status().backlog == 0; }));
    REQUIRE_OK((*publisher)->stop());
}

TEST_CASE("events of one device arrive in sequence order across a full window") {
    Mosquitto broker;
    Subscriber subscriber(broker, "observer");
    TempDir dir;
    auto store = open_store(dir.file("o.db"), test_options());
    record_alarms(*store, 600, 3);
    auto publisher = Publisher::start(*store, test_publisher_options(broker));
    REQUIRE_OK(publisher);
    REQUIRE(eventually([&] { return subscriber.event_counts().size() == 600; }));
    std::string problem;
    const bool in_order = arrived_in_device_order(subscriber.messages(), &problem);
    INFO(problem);
    CHECK(in_order);
}

TEST_CASE("the gateway announces itself online (retained) and says offline when it stops") {
    Mosquitto broker;
    TempDir dir;
    auto store = open_store(dir.file("s.db"), test_options());
    auto publisher = Publisher::start(*store, test_publisher_options(broker));
    REQUIRE_OK(publisher);
    REQUIRE(eventually([&] { return (*publisher)->status().connected; }));
    {
        // Subscribing after the fact: only a retained message can be there.
        Subscriber late(broker, "late-observer");
        REQUIRE(eventually([&] { return saw_status(late, "online"); }));
    }
    REQUIRE_OK((*publisher)->stop());
    Subscriber after_stop(broker, "after-stop-observer");
    REQUIRE(eventually([&] { return saw_status(after_stop, "offline"); }));
    CHECK_FALSE((*publisher)->status().lease_held);
}

TEST_CASE("a wall clock jump of a day either way changes nothing") {
    Mosquitto broker;
    Subscriber subscriber(broker, "observer");
    TempDir dir;
    JumpingWallClock clock;
    auto store = open_store(dir.file("w.db"), test_options(&clock));
    PublisherOptions options = test_publisher_options(broker);
    options.clock = &clock;
    auto publisher = Publisher::start(*store, options);
    REQUIRE_OK(publisher);

    constexpr int64_t kDay = 24 * 3600 * 1000;
    record_alarms(*store, 50, 2, 1);
    clock.manual.jump_wall(kDay);
    record_alarms(*store, 50, 2, 1);
    clock.manual.jump_wall(-2 * kDay);
    record_alarms(*store, 50, 2, 1);
    REQUIRE(eventually([&] { return subscriber.event_counts().size() == 150; }));
    REQUIRE(eventually([&] { return outbox_view(dir.file("w.db")).sent == 150; }));

    auto view = outbox_view(dir.file("w.db"));
    CHECK(view.dead == 0);
    CHECK(view.max_attempts == 0);
    auto status = (*publisher)->status();
    CHECK(status.lease_epoch == 1);  // the lease was never retaken
    CHECK(status.reconnects == 0);
    std::string problem;
    const bool in_order = arrived_in_device_order(subscriber.messages(), &problem);
    INFO(problem);
    CHECK(in_order);
    for (const auto& [event_id, count] : subscriber.event_counts()) CHECK(count == 1);
}
