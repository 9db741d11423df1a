// The e2e campaign's broker faults (--broker-faults N): what the
// campaign does to the MQTT broker and to the bridge's session around one
// gateway run, so that the broker acknowledges alarms and then loses them.
// Only receipts (the bridge confirms after RocketMQ's SEND_OK, the gateway
// publishes again what no receipt confirmed) bring those alarms to RocketMQ;
// with the gateway's receipts off (--no-receipts) the campaign must fail.
//
// One fault per run, chosen like the fault points: a FaultPlanner over the
// table in broker_faults.cpp, cycling from the first entry, the hit drawn
// from --seed. A failing campaign repeats with the same options.
//
//  bridge.never_subscribed  the bridge is SIGKILLed before the run and, after
//      it, replaced by one with a new client id and shared group: the alarms
//      of the run were published before that subscription existed, and the
//      broker acknowledged and dropped them. Run 0 has this fault: the
//      campaign's gateway publishes before its bridge ever subscribed.
//  broker.kill  mosquitto (persistence false) is SIGKILLed at hit x 25 ms
//      into the run (during it, or after a short run ended) and restarted on
//      the same port: it forgets every queued message, every session and
//      every subscription. Messages it had not yet passed to the bridge are
//      gone, and until the bridge reconnects and subscribes again the broker
//      drops what the gateway publishes.
//  bridge.session_expiry  the bridge is SIGKILLed before the run and started
//      again (same client id) only when it has been down for its session
//      expiry (1 s in this mode) plus a margin: the broker discards its
//      session with everything queued for it during the run.
#ifndef OUTPOST_PROOF_BROKER_FAULTS_H
#define OUTPOST_PROOF_BROKER_FAULTS_H

#include <cstdint>
#include <map>
#include <string>
#include <thread>

#include "proof/bridge_leg.h"
#include "proof/evidence.h"
#include "proof/fault_plan.h"
#include "proof/observer.h"

namespace outpost::torture {

class BrokerFaults final {
  public:
    // Borrows `observer` (the broker) and `bridge`; both outlive this.
    BrokerFaults(uint64_t seed, MqttObserver& observer, BridgeLeg& bridge);
    // Joins a broker kill still pending.
    ~BrokerFaults();
    BrokerFaults(const BrokerFaults&) = delete;
    BrokerFaults& operator=(const BrokerFaults&) = delete;

    // Just before gateway run `run` starts: stops the bridge, or starts the
    // thread that kills and restarts the broker. "" or what failed.
    std::string before_run(uint64_t run);
    // When the run ended: waits for the broker's restart, or starts the
    // bridge again (or its replacement). "" or what failed.
    std::string after_run(uint64_t run);

    // The fault of run `run`, "<name>:<hit>", for failure reports.
    std::string fault(uint64_t run) { return planner_.fault(run); }
    uint64_t fired() const { return fired_; }
    // " <name>=<count>" per fault, in table order.
    std::string fired_per_fault() const { return planner_.kills_per_point(); }
    // " <name>=<count>": acknowledged alarms of `evidence` missing from
    // `stored` (eventId -> copies), each counted under the fault of the run
    // whose call recorded it (token "e<run>w..."; a rough attribution: a
    // row a killed child left pending goes out in the next run). Shows
    // which faults bite when receipts are off.
    std::string missing_per_fault(const faults::EvidenceLog& evidence,
                                  const std::map<std::string, int>& stored) const;

  private:
    FaultPlanner planner_;
    MqttObserver& observer_;
    BridgeLeg& bridge_;
    std::thread broker_kill_;
    std::string broker_kill_error_;  // written by broker_kill_, read after join
    uint64_t fired_ = 0;
};

}  // namespace outpost::torture

#endif  // OUTPOST_PROOF_BROKER_FAULTS_H
