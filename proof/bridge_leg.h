// The e2e campaign's optional last leg: outpost-bridge as a child process
// between the campaign's mosquitto and a real RocketMQ, SIGKILLed at the
// bridge fault points and restarted, and RocketMQ read from outside our code
// (mqadmin printMsg through scripts/rocketmq.sh).
#ifndef OUTPOST_PROOF_BRIDGE_LEG_H
#define OUTPOST_PROOF_BRIDGE_LEG_H

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "proof/fault_plan.h"
#include "proof/observer.h"
#include "proof/options.h"

namespace outpost::torture {

class BridgeLeg final {
  public:
    // Reads options.rocketmq_env (the env file `scripts/rocketmq.sh start`
    // writes), creates a topic of its own, and starts the bridge armed with
    // its first fault point. nullptr with *error set on any failure.
    static std::unique_ptr<BridgeLeg> start(const CampaignOptions& options,
                                            const std::string& scratch,
                                            const std::string& broker_uri, std::string* error);

    // Between gateway runs: if the bridge ended, counts its SIGKILL (an
    // other end is an error, returned) and starts it again armed with the
    // next point; a bridge that is not killed any more is left running.
    // Nothing while it is stopped (stop()).
    std::string tend();

    // The broker faults' hands on the bridge (broker_faults.h). stop()
    // SIGKILLs the bridge now (after counting a fault-point kill that came
    // first) and leaves it down; its session stays in the broker until
    // session_expiry() after the kill.
    std::string stop();
    // Starts the stopped bridge again, armed as before, once it has been
    // down for at least `down` (sleeps the rest).
    std::string resume(std::chrono::milliseconds down);
    // Starts, in place of the stopped bridge, one with a new client id and
    // a new shared group: a subscription that did not exist while it was
    // down.
    std::string replace();
    // Session expiry the bridge asks for: 1 s with options.broker_faults
    // (a down bridge loses its session quickly), else the bridge's default.
    std::chrono::seconds session_expiry() const;

    // Restarts the bridge unarmed (counting a kill that came first), so it
    // runs through the gateway's last, draining run. Returns an error line.
    std::string disarm();
    // Disarms the bridge if it is still armed and waits until RocketMQ
    // holds every id of `wanted` (or `limit` passes); returns eventId
    // (KEYS) -> messages.
    std::map<std::string, int> settle(const std::set<std::string>& wanted,
                                      std::chrono::seconds limit);

    uint64_t kills() const { return kills_; }
    std::string kills_per_point() const { return planner_.kills_per_point(); }
    const std::string& topic() const { return topic_; }
    std::string name_servers() const { return rocketmq_.at("NAMESRV_ADDR"); }
    // The RocketMQ brokers behind the topic as read at start: one line each
    // with flushDiskType, brokerRole and whether SEND_OK is durable
    // (rocketmq/broker_durability.h), or why they could not be read.
    const std::vector<std::string>& broker_settings() const { return broker_settings_; }
    std::string log_tail() const;

  private:
    BridgeLeg(const CampaignOptions& options, std::string scratch);
    std::string start_bridge(bool armed);
    // Writes bridge.json for the current incarnation_ (client id and
    // shared group carry it from the first replace() on).
    void write_config();
    // The bridge ended: counts a SIGKILL at its armed point; any other end
    // is returned as an error line.
    std::string reap();
    std::map<std::string, int> read_rocketmq() const;

    const CampaignOptions options_;
    const std::string scratch_;
    std::map<std::string, std::string> rocketmq_;  // NAMESRV_ADDR, BROKER_ADDR, ROCKETMQ_DIR
    std::string topic_;
    std::vector<std::string> broker_settings_;
    std::string run_name_;
    std::string broker_uri_;
    std::string config_path_;
    int incarnation_ = 0;
    bool stopped_ = false;
    std::chrono::steady_clock::time_point stopped_at_;
    FaultPlanner planner_;
    uint64_t run_ = 0;
    bool armed_ = false;
    uint64_t kills_ = 0;
    std::unique_ptr<LoggedProcess> bridge_;
};

}  // namespace outpost::torture

#endif  // OUTPOST_PROOF_BRIDGE_LEG_H
