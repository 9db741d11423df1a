#include "proof/bridge_leg.h"

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "proof/child.h"
#include "rocketmq/admin.h"

namespace outpost::torture {
namespace {

constexpr std::chrono::seconds kRocketMqTimeout{30};

}  // namespace

BridgeLeg::BridgeLeg(const CampaignOptions& options, std::string scratch)
    : options_(options),
      scratch_(std::move(scratch)),
      planner_(fault_points_where([](const FaultPointInfo& point) {
                   return std::string(point.workload) == "bridge";
               }),
               options.seed) {}

std::unique_ptr<BridgeLeg> BridgeLeg::start(const CampaignOptions& options,
                                            const std::string& scratch,
                                            const std::string& broker_uri, std::string* error) {
    std::unique_ptr<BridgeLeg> leg(new BridgeLeg(options, scratch));
    leg->rocketmq_ = read_env_file(options.rocketmq_env);
    for (const char* key : {"NAMESRV_ADDR", "BROKER_ADDR", "ROCKETMQ_DIR"}) {
        if (leg->rocketmq_[key].empty()) {
            *error = options.rocketmq_env + " lacks " + key +
                     " (expected the env file of scripts/rocketmq.sh start DIR)";
            return nullptr;
        }
    }
    const std::string run_name =
        std::to_string(options.seed) + "_" +
        std::to_string(std::chrono::system_clock::now().time_since_epoch() /
                       std::chrono::milliseconds(1) % 100000000);
    leg->topic_ = "outpost_torture_" + run_name;
    rocketmq::TopicSpec spec;
    spec.name = leg->topic_;
    Status status = rocketmq::create_topic(leg->rocketmq_["BROKER_ADDR"], spec, kRocketMqTimeout);
    if (status) {
        status = rocketmq::wait_for_topic_route(leg->rocketmq_["NAMESRV_ADDR"], leg->topic_,
                                                kRocketMqTimeout);
    }
    if (!status) {
        *error = "cannot create RocketMQ topic " + leg->topic_ + ": " + status.to_string();
        return nullptr;
    }
    // A persistent session (fixed client id): what the bridge had not
    // acknowledged when it was killed waits in mosquitto for its restart.
    const nlohmann::json config = {{"mqtt",
                                    {{"uri", broker_uri},
                                     {"client_id", "outpost-torture-bridge-" + run_name},
                                     {"shared_group", "torture-" + run_name},
                                     {"keepalive_s", 5},
                                     {"reconnect_min_ms", 50},
                                     {"reconnect_max_ms", 500}}},
                                   {"rocketmq",
                                    {{"name_servers", leg->rocketmq_["NAMESRV_ADDR"]},
                                     {"producer_group", "outpost_torture"},
                                     {"send_timeout_ms", 3000},
                                     {"max_attempts", 2},
                                     {"retry_pause_max_ms", 500}}},
                                   {"mapping",
                                    {{{"mqtt_filter", "outpost/+/alarm/+"},
                                      {"rocketmq_topic", leg->topic_},
                                      {"tag", "${payload.severity}"}}}},
                                   {"quarantine_topic", leg->topic_ + "_quarantine"}};
    leg->config_path_ = scratch + "/bridge.json";
    std::ofstream(leg->config_path_) << config.dump(2);
    *error = leg->start_bridge(true);
    if (!error->empty()) return nullptr;
    // Its persistent session must hold the subscription before the first
    // gateway publishes: the broker acknowledges and drops what matches no
    // subscription, and the campaign would count those alarms as lost.
    const bool subscribed =
        poll_until([&] { return leg->bridge_->log().find(", subscribed") != std::string::npos; },
                   kRocketMqTimeout);
    if (!subscribed) {
        *error = "outpost-bridge did not subscribe in time: " + leg->log_tail();
        return nullptr;
    }
    return leg;
}

std::string BridgeLeg::start_bridge(bool armed) {
    std::vector<std::string> env;
    armed_ = armed;
    if (armed) env.push_back("OUTPOST_FAULT=" + planner_.fault(run_));
    std::string error;
    bridge_ = LoggedProcess::spawn({options_.bridge_binary, "--config", config_path_},
                                   scratch_ + "/bridge.log", &error, env);
    return error;
}

std::string BridgeLeg::tend() {
    if (bridge_->running()) return "";
    const int status = bridge_->wait_status();
    if (!armed_ || !WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
        return "the bridge ended by itself (wait status " + std::to_string(status) +
               "): " + log_tail();
    }
    ++kills_;
    planner_.killed(run_);
    ++run_;
    return start_bridge(true);
}

std::map<std::string, int> BridgeLeg::settle(const std::set<std::string>& wanted,
                                             std::chrono::seconds limit) {
    bridge_.reset();  // SIGTERM: a clean stop, or the kill it was waiting for
    start_bridge(false);
    std::map<std::string, int> stored;
    poll_until(
        [&] {
            stored = read_rocketmq();  // one JVM start: seconds, not milliseconds
            for (const std::string& id : wanted) {
                if (stored.count(id) == 0) return false;
            }
            return true;
        },
        limit);
    return stored;
}

std::map<std::string, int> BridgeLeg::read_rocketmq() const {
    const std::string output =
        run_command(options_.rocketmq_script + " admin " + rocketmq_.at("ROCKETMQ_DIR") +
                    " printMsg -t " + topic_ + " -d true 2>/dev/null");
    std::map<std::string, int> keys;
    for (size_t at = 0; (at = output.find("MSGID: ", at)) != std::string::npos;) {
        const size_t end = output.find('\n', at);
        const std::string line = output.substr(at, end == std::string::npos ? end : end - at);
        at = end == std::string::npos ? output.size() : end;
        const size_t properties = line.find("properties={");
        const size_t key = line.find("KEYS=", properties == std::string::npos ? 0 : properties);
        if (properties == std::string::npos || key == std::string::npos) continue;
        const size_t stop = line.find_first_of(",}", key + 5);
        keys[line.substr(key + 5, stop == std::string::npos ? stop : stop - key - 5)]++;
    }
    return keys;
}

std::string BridgeLeg::log_tail() const {
    std::string log = bridge_ ? bridge_->log() : "";
    return log.substr(log.size() > 2000 ? log.size() - 2000 : 0);
}

}  // namespace outpost::torture
