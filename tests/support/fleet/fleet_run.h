// A fleet of gateways against a real mosquitto (started here, persistence on
// as the shipped configuration has it), a real outpost-bridge (started
// here) and a RocketMQ given by address, through warm-up, a steady phase and
// broker restarts (SIGTERM, SIGKILL), then a final drain. Shared by
// bench/fleet_load.cpp and the bridge integration test of the same name.
//
// The fleet: G gateways in this process, each its own MQTT v5 session,
// client id and topics (outpost/<gatewayId>/alarm/<deviceId>, receipts on
// outpost/<gatewayId>/receipt). `outpost_gateways` of them are Outpost
// itself (outpost_gateway.h), the rest bare paho clients that behave as an
// Outpost publisher with receipts does (raw_gateway.h). Each raises one
// alarm per interval (jittered 0.5x to 1.5x); `burst_fraction` of them raise
// `burst_size` at once instead.
//
// What counts (FleetReport): an alarm is lost when the broker acknowledged
// it to its gateway and, at the end, no receipt came for it and RocketMQ
// has no message with its eventId as key (checked with mqadmin). Drained:
// every alarm raised before the broker came back is receipted.
//
// Test and bench tooling: set-up failures throw std::runtime_error.
#ifndef OUTPOST_TESTS_FLEET_FLEET_RUN_H
#define OUTPOST_TESTS_FLEET_FLEET_RUN_H

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace outpost::fleet {

enum class Restart { kGraceful, kKill };
const char* restart_name(Restart restart);

struct FleetOptions {
    int gateways = 1000;
    int outpost_gateways = 100;  // of `gateways`, spread evenly among them
    double interval_s = 5;       // mean pause between a gateway's alarms
    double burst_fraction = 0.05;
    int burst_size = 20;
    double warmup_s = 10;
    double steady_s = 120;
    std::vector<Restart> restarts = {Restart::kGraceful, Restart::kKill};
    double down_s = 5;     // the broker stays down this long at each restart
    double settle_s = 10;  // load between a drain and the next restart
    double drain_limit_s = 300;
    // The gateways' receipt timeout; the publisher's default when 0.
    int64_t receipt_timeout_ms = 0;
    int bridge_sessions = 1;
    // The bridge's mqtt.reconnect_max_ms; its default when 0.
    int bridge_reconnect_max_ms = 0;
    // The bridge's batch.max_messages (1: one request per message); its
    // default when 0.
    int bridge_batch = 0;
    uint64_t seed = 1;

    // Where things are.
    std::string bridge_binary;        // outpost-bridge
    std::string source_root;          // for scripts/rocketmq.sh admin (the loss check)
    std::string rocketmq_dir;         // the RocketMQ's directory (its env's ROCKETMQ_DIR)
    std::string name_servers;         // NAMESRV_ADDR
    std::string rocketmq_broker;      // BROKER_ADDR: the topic is created there
    std::string topic = "outpost_fleet";  // created with 8 queues; quarantine: <topic>_q
    // Called with one line at each phase (may be empty).
    std::function<void(const std::string&)> progress;
};

struct RestartFigures {
    Restart kind = Restart::kGraceful;
    double down_s = 0;           // stop (or kill) until the broker was ready again
    uint64_t backlog = 0;        // alarms not receipted when it was back
    double reconnected_s = -1;   // until every gateway was connected again
    int peak_connects_per_s = 0;  // connections completed, most in one second
    double drained_s = -1;       // until the backlog was receipted; -1: not within the limit
    double bridge_cpu_us_per_msg = 0;  // from the stop to the drain, per forwarded message
    double broker_cpu_us_per_msg = 0;
};

struct FleetReport {
    int gateways = 0;
    int outpost_gateways = 0;
    uint64_t alarms_raised = 0;
    uint64_t publishes = 0;  // raw gateways' publish calls, repeats included
    uint64_t alarms_acked = 0;
    uint64_t alarms_lost = 0;
    uint64_t alarms_unsent = 0;  // never acknowledged by the broker by the end
    uint64_t receipts_delivered = 0;
    uint64_t receipts_expected = 0;
    uint64_t republished_unacked = 0;
    uint64_t republished_unreceipted = 0;
    int initial_peak_connects_per_s = 0;
    double initial_connect_s = 0;
    std::vector<RestartFigures> restarts;
    double final_drain_s = -1;
    // Steady phase.
    double steady_msg_per_s = 0;
    double steady_bridge_cpu_us_per_msg = 0;
    double steady_broker_cpu_us_per_msg = 0;
    double steady_fleet_cpu_us_per_msg = 0;  // this process: every gateway client
    double steady_bridge_cores = 0;
    double steady_broker_cores = 0;
    // The whole run, start to final drain.
    uint64_t bridge_received = 0;    // messages the bridge took from MQTT
    uint64_t bridge_forwarded = 0;   // of those, sent to RocketMQ
    uint64_t bridge_duplicates = 0;  // of those, repeats its cache dropped
    double bridge_cpu_us_per_msg = 0;
    double broker_cpu_us_per_msg = 0;
    double load1 = 0;
    nlohmann::json to_json() const;
};

FleetReport run_fleet(const FleetOptions& options);

}  // namespace outpost::fleet

#endif  // OUTPOST_TESTS_FLEET_FLEET_RUN_H
