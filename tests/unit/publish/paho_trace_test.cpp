// paho's process-wide settings (paho/client_setup.h): its ring of function
// entry and exit records is written for errors only, unless the operator
// asks for paho's trace. Observed through paho's own trace callback, which
// receives every record paho makes at or above its output level.
#include <MQTTAsync.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdlib>
#include <memory>

#include "paho/client_setup.h"

namespace outpost {
namespace {

std::atomic<int> records_below_error{0};

void count_record(enum MQTTASYNC_TRACE_LEVELS level, char* /*message*/) {
    if (level < MQTTASYNC_TRACE_ERROR) records_below_error++;
}

// Creates a client and lets it fail to connect (nothing listens on port 1
// of loopback): dozens of paho functions run on two threads.
std::unique_ptr<mqtt::async_client> create_and_fail_to_connect(const char* client_id) {
    paho::ConnectSettings settings;
    settings.endpoint.uri = "tcp://127.0.0.1:1";
    settings.endpoint.client_id = client_id;
    settings.endpoint.connect_timeout = std::chrono::seconds(2);
    auto client = paho::make_client(settings, "MQTT client");
    REQUIRE(client.is_ok());
    paho::PendingConnect pending;
    CHECK_FALSE(paho::connect(**client, settings, "connect", pending).is_ok());
    return std::move(*client);
}

}  // namespace

TEST_CASE("paho records only errors in its trace once Outpost created a client") {
    ::unsetenv("MQTT_C_CLIENT_TRACE");
    ::unsetenv("MQTT_C_CLIENT_TRACE_LEVEL");
    // The first client starts paho's log, which hands its banner (product,
    // versions, /proc/version) to the callback whatever the level; it is
    // kept so the log is not started again (paho ends it with its last
    // client).
    const auto first = create_and_fail_to_connect("trace-test-1");
    MQTTAsync_setTraceCallback(count_record);

    create_and_fail_to_connect("trace-test-2");
    CHECK(records_below_error.load() == 0);

    // The observation can fail: at paho's default level the same work is
    // recorded function by function.
    MQTTAsync_setTraceLevel(MQTTASYNC_TRACE_MINIMUM);
    create_and_fail_to_connect("trace-test-3");
    CHECK(records_below_error.load() > 0);
    MQTTAsync_setTraceCallback(nullptr);
}

}  // namespace outpost
