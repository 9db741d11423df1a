// MQTT clients the benchmarks share.
#ifndef OUTPOST_BENCH_BENCH_MQTT_H
#define OUTPOST_BENCH_BENCH_MQTT_H

#include <mqtt/async_client.h>

#include <memory>
#include <string>

namespace outpost::bench {

// A paho MQTT v5 client with a clean session, connected to `uri` (throws
// mqtt::exception when it cannot connect).
inline std::unique_ptr<mqtt::async_client> connected_client(const std::string& uri,
                                                            const std::string& client_id) {
    auto client = std::make_unique<mqtt::async_client>(
        uri, client_id, mqtt::create_options(MQTTVERSION_5), nullptr);
    mqtt::connect_options options;
    options.set_mqtt_version(MQTTVERSION_5);
    options.set_clean_start(true);
    client->connect(options)->wait();
    return client;
}

}  // namespace outpost::bench

#endif  // OUTPOST_BENCH_BENCH_MQTT_H
