#include "proof/broker_faults.h"

#include <chrono>
#include <cstdlib>
#include <vector>

namespace outpost::torture {
namespace {

// The faults, in the order runs cycle over them (run 0 gets the first). The
// workload column says who is hit; the table is the campaign's, not part of
// kFaultPoints: nothing in the code under test has to reach these points.
constexpr FaultPointInfo kBrokerFaults[] = {
    {"bridge.never_subscribed", "alarms published before the bridge's subscription existed",
     "broker"},
    {"broker.kill", "mosquitto SIGKILLed without persistence and restarted", "broker"},
    {"bridge.session_expiry", "the bridge down past its session expiry", "broker"},
};
// broker.kill lands hit x kKillStep into the run (hits 1..24: up to 600 ms).
constexpr std::chrono::milliseconds kKillStep{25};
// The broker checks session expiry about once a second: down this much
// longer than the expiry, the session is gone.
constexpr std::chrono::milliseconds kExpiryMargin{2500};

std::vector<const FaultPointInfo*> broker_fault_table() {
    std::vector<const FaultPointInfo*> faults;
    for (const FaultPointInfo& fault : kBrokerFaults) faults.push_back(&fault);
    return faults;
}

}  // namespace

BrokerFaults::BrokerFaults(uint64_t seed, MqttObserver& observer, BridgeLeg& bridge)
    : planner_(broker_fault_table(), seed), observer_(observer), bridge_(bridge) {}

BrokerFaults::~BrokerFaults() {
    if (broker_kill_.joinable()) broker_kill_.join();
}

std::string BrokerFaults::before_run(uint64_t run) {
    const std::string name = std::string(planner_.point(run).name);
    if (name == "broker.kill") {
        const auto delay = kKillStep * planner_.hit(run);
        broker_kill_error_.clear();
        // Only this thread touches the observer until after_run() joins it.
        broker_kill_ = std::thread([this, delay] {
            std::this_thread::sleep_for(delay);
            broker_kill_error_ = observer_.restart_broker();
        });
        return "";
    }
    return bridge_.stop();
}

std::string BrokerFaults::after_run(uint64_t run) {
    const std::string name = std::string(planner_.point(run).name);
    std::string error;
    if (name == "broker.kill") {
        broker_kill_.join();
        error = broker_kill_error_;
    } else if (name == "bridge.session_expiry") {
        error = bridge_.resume(bridge_.session_expiry() + kExpiryMargin);
    } else {
        error = bridge_.replace();
    }
    if (!error.empty()) return name + ": " + error;
    planner_.killed(run);
    ++fired_;
    return "";
}

std::string BrokerFaults::missing_per_fault(const faults::EvidenceLog& evidence,
                                            const std::map<std::string, int>& stored) const {
    std::map<std::string, uint64_t> missing;
    for (const auto& [token, call] : evidence.calls()) {
        for (const faults::CallAttempt& attempt : call.attempts) {
            if (attempt.outcome != faults::CallOutcome::kAcknowledged) continue;
            if (stored.count(attempt.event_id) == 0 && token.size() > 1 && token[0] == 'e') {
                const uint64_t run = std::strtoull(token.c_str() + 1, nullptr, 10);
                ++missing[planner_.point(run).name];
            }
            break;
        }
    }
    std::string line;
    for (const FaultPointInfo& fault : kBrokerFaults) {
        line += std::string(" ") + fault.name + "=" + std::to_string(missing[fault.name]);
    }
    return line;
}

}  // namespace outpost::torture
