// The C API's publisher against a real mosquitto: an alarm recorded through
// outpost_c.h arrives at a subscriber with the eventId the record call
// returned, and the publisher started and stopped from C does what the C++
// one promises (connects, marks SENT, stops cleanly). The C99 program in
// tests/unit/capi covers every other C API call and error.
#include <catch2/catch.hpp>

#include "outpost/outpost_c.h"
#include "publish_harness.h"

using namespace outpost::testing;

namespace {

std::string describe(const outpost_error& error) {
    return std::string(outpost_code_name(error.code)) + ": " + error.message;
}

outpost_publisher_status status_of(outpost_publisher* publisher) {
    outpost_publisher_status status;
    outpost_error error;
    if (outpost_publisher_get_status(publisher, &status, &error) != OUTPOST_OK) {
        throw std::runtime_error("outpost_publisher_get_status: " + describe(error));
    }
    return status;
}

}  // namespace

TEST_CASE("an alarm recorded through the C API arrives at a subscriber with its eventId") {
    Mosquitto broker;
    Subscriber subscriber(broker, "observer");
    TempDir dir;
    const std::string path = dir.file("c.db");
    outpost_error error;

    outpost_store_options store_options;
    outpost_store_options_init(&store_options);
    store_options.gateway_id = "gw-c";
    outpost_store* store = nullptr;
    REQUIRE(outpost_store_open(path.c_str(), &store_options, &store, &error) == OUTPOST_OK);

    outpost_alarm alarm;
    outpost_alarm_init(&alarm);
    alarm.device_id = "pump-1";
    alarm.alarm_type = "OVER_TEMPERATURE";
    alarm.severity = OUTPOST_SEVERITY_CRITICAL;
    alarm.idempotency_key = "pump-1-overtemp-1";
    outpost_recorded recorded;
    REQUIRE(outpost_store_record_alarm(store, &alarm, &recorded, &error) == OUTPOST_OK);

    outpost_publisher_options options;
    outpost_publisher_options_init(&options);
    const std::string uri = broker.uri();
    options.broker_uri = uri.c_str();
    options.client_id = "gw-c-from-c";
    options.connect_timeout_ms = 2000;
    outpost_publisher* publisher = nullptr;
    REQUIRE(outpost_publisher_start(store, &options, &publisher, &error) == OUTPOST_OK);

    REQUIRE(eventually([&] { return subscriber.event_counts().count(recorded.event_id) == 1; }));
    bool on_alarm_topic = false;
    for (const auto& message : subscriber.messages()) {
        if (message.envelope.is_object() &&
            message.envelope.value("eventId", "") == recorded.event_id) {
            on_alarm_topic = message.topic == "outpost/gw-c/alarm/pump-1";
            CHECK(message.envelope["payload"].value("alarmType", "") == "OVER_TEMPERATURE");
            CHECK(message.envelope["payload"].value("severity", "") == "critical");
        }
    }
    CHECK(on_alarm_topic);
    REQUIRE(eventually([&] { return status_of(publisher).sent == 1; }));
    outpost_publisher_status status = status_of(publisher);
    CHECK(status.connected == 1);
    CHECK(status.lease_held == 1);
    CHECK(status.running == 1);

    CHECK(outpost_store_close(store, &error) == OUTPOST_BUSY);
    REQUIRE(outpost_publisher_stop(publisher, 5000, &error) == OUTPOST_OK);
    CHECK(status_of(publisher).running == 0);
    // The retained status says the publisher left cleanly.
    REQUIRE(eventually([&] {
        for (const auto& message : subscriber.messages()) {
            if (message.topic == "outpost/gw-c/status" &&
                message.envelope.value("state", "") == "offline") {
                return true;
            }
        }
        return false;
    }));

    outpost_store_stats stats;
    REQUIRE(outpost_store_get_stats(store, &stats, &error) == OUTPOST_OK);
    CHECK(stats.pending == 0);
    CHECK(stats.sent == 1);
    CHECK(outpost_store_close(store, &error) == OUTPOST_OK);
    outpost_publisher_free(publisher);
    outpost_store_free(store);
}
