// What the tests against a RocketMQ with authentication or TLS share: the
// bridge configured from the instance's env file (ROCKETMQ_ACCESS_KEY,
// ROCKETMQ_SECRET_FILE, ROCKETMQ_TLS_CA written by scripts/rocketmq.sh), a
// name server address nothing listens on, and the wait for a refusal.
#ifndef OUTPOST_TESTS_BRIDGE_SECURE_ROCKETMQ_H
#define OUTPOST_TESTS_BRIDGE_SECURE_ROCKETMQ_H

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <set>
#include <string>
#include <vector>

#include "bridge_harness.h"

namespace outpost::testing {

// `config` signing with the env's client user (when the instance
// authenticates) and using TLS verified against its CA (when it enforces TLS).
inline nlohmann::json with_env_security(nlohmann::json config) {
    std::map<std::string, std::string>& env = rocketmq_env();
    if (!env["ROCKETMQ_ACCESS_KEY"].empty()) {
        config["rocketmq"]["access_key"] = env["ROCKETMQ_ACCESS_KEY"];
        config["rocketmq"]["secret_file"] = env["ROCKETMQ_SECRET_FILE"];
    }
    if (!env["ROCKETMQ_TLS_CA"].empty()) {
        config["rocketmq"]["tls"] = {{"enabled", true}, {"ca_file", env["ROCKETMQ_TLS_CA"]}};
    }
    return config;
}

// "127.0.0.1:PORT" where nothing listens: a name server that is down.
inline std::string dead_loopback_address() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&address), length) == 0);
    REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) == 0);
    ::close(fd);  // bound, never listened: connecting is refused
    return "127.0.0.1:" + std::to_string(ntohs(address.sin_port));
}

// Waits until the bridge reports that RocketMQ refused it; returns the reason.
inline std::string wait_for_refusal(const BridgeProcess& bridge) {
    std::string refused;
    wait_until(
        [&] {
            refused = bridge.status().value("rocketmq_refused", std::string());
            return !refused.empty();
        },
        std::chrono::seconds(60));
    return refused;
}

// Sends every event and waits until the bridge forwarded `expected` in all.
inline void forward_and_wait(const Mosquitto& broker, const BridgeProcess& bridge,
                             const std::vector<GatewayEvent>& events, std::uint64_t expected) {
    {
        GatewayPublisher gateway(broker.uri(), "gw-sec-" + run_id());
        REQUIRE_NOTHROW(gateway.publish_all(outgoing(events)));
    }
    const bool forwarded = wait_until([&] { return bridge.counter("forwarded") >= expected; },
                                      std::chrono::seconds(90));
    INFO("status: " << bridge.status().dump() << " | bridge log: " << bridge.log());
    REQUIRE(forwarded);
}

// forward_and_wait for all of `events`, then: every one is in RocketMQ's
// `topic` by its eventId and nothing was quarantined.
inline void forward_all_and_check(const Mosquitto& broker, const BridgeProcess& bridge,
                                  const std::string& topic,
                                  const std::vector<GatewayEvent>& events) {
    forward_and_wait(broker, bridge, events, events.size());
    const std::set<std::string> ids = ids_of(events);
    CHECK(missing_keys(messages_with_keys(topic, ids), ids).empty());
    CHECK(bridge.status()["quarantined"]["total"] == 0);
}

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_BRIDGE_SECURE_ROCKETMQ_H
