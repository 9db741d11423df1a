// The control for telemetry_bench: the same telemetry (bench/sensor_telemetry.h)
// at the same rate to the same broker, from a bare paho client in a process
// of its own instead of outpost-telemetry. No ring, no pacer, no datagram
// socket: if the alarms suffer as much from this as from our lane, what
// bounds them is the broker and the machine, not the lane.
//
// Usage: paho_telemetry_source URI GATEWAY_ID RATE
// Runs at the telemetry process's default CPU priority (nice 10, as
// kTelemetryNice), connects (MQTT v5, clean start), prints "connected", then
// publishes RATE messages/s at QoS 0 to outpost/GATEWAY_ID/telemetry/<key>,
// paced per millisecond, until SIGTERM or SIGINT; prints "published N" and
// exits 0. Exit 1: no connection; 2: usage.
#include <mqtt/async_client.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "paho/client_setup.h"
#include "sensor_telemetry.h"

namespace {

std::atomic<bool> stopping{false};

void on_stop_signal(int) {
    stopping = true;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4 || std::atoi(argv[3]) < 1) {
        std::fprintf(stderr, "usage: paho_telemetry_source URI GATEWAY_ID RATE\n");
        return 2;
    }
    const std::string uri = argv[1];
    const std::string prefix = std::string("outpost/") + argv[2] + "/telemetry/";
    const int per_second = std::atoi(argv[3]);
    // Before paho's threads start: they inherit it, as in outpost-telemetry.
    ::setpriority(PRIO_PROCESS, 0, 10);
    struct sigaction action {};
    action.sa_handler = on_stop_signal;
    ::sigaction(SIGTERM, &action, nullptr);
    ::sigaction(SIGINT, &action, nullptr);

    // The same paho settings as outpost-telemetry's client.
    outpost::paho::configure_process();
    mqtt::async_client client(uri, "bench-paho-telemetry-" + std::to_string(::getpid()),
                              mqtt::create_options(MQTTVERSION_5),
                              static_cast<mqtt::iclient_persistence*>(nullptr));
    mqtt::connect_options options;
    options.set_mqtt_version(MQTTVERSION_5);
    options.set_clean_start(true);
    try {
        client.connect(options)->wait_for(std::chrono::seconds(5));
    } catch (const mqtt::exception& error) {
        std::fprintf(stderr, "connect: %s\n", error.what());
        return 1;
    }
    std::printf("connected\n");
    std::fflush(stdout);

    using Steady = std::chrono::steady_clock;
    const auto start = Steady::now();
    uint64_t n = 0, published = 0;
    for (int64_t tick = 0; !stopping; ++tick) {
        std::this_thread::sleep_until(start + std::chrono::milliseconds(tick));
        const auto due = static_cast<uint64_t>((tick + 1) * per_second / 1000);
        for (; n < due && !stopping; ++n) {
            const std::string payload = outpost::bench::sensor_payload(n);
            try {
                client.publish(prefix + outpost::bench::sensor_key(n), payload.data(),
                               payload.size(), 0, false);
                ++published;
            } catch (const mqtt::exception&) {
                // paho's queue is full: dropped, as the lane's ring would.
            }
        }
    }
    std::printf("published %llu\n", static_cast<unsigned long long>(published));
    try {
        client.disconnect()->wait_for(std::chrono::seconds(5));
    } catch (const mqtt::exception&) {
    }
    return 0;
}
