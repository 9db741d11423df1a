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
#include "rocketmq/broker_durability.h"

namespace outpost::torture {
namespace {

constexpr std::chrono::seconds kRocketMqTimeout{30};
// The bridge's session expiry: a week (as deployed), or, with broker
// faults, a second, so a bridge down for a few seconds loses its session.
constexpr std::chrono::seconds kDefaultSessionExpiry{7 * 24 * 3600};
constexpr std::chrono::seconds kShortSessionExpiry{1};

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
    // What the campaign's SEND_OK meant: printed with its verdict.
    const auto brokers = rocketmq::survey_broker_durability({leg->rocketmq_["NAMESRV_ADDR"]},
                                                            {leg->topic_}, {}, kRocketMqTimeout);
    if (brokers.is_ok()) {
        for (const rocketmq::BrokerReport& report : *brokers) {
            leg->broker_settings_.push_back(rocketmq::describe_broker_report(report));
        }
    } else {
        leg->broker_settings_.push_back("brokers not read: " + brokers.status().to_string());
    }
    leg->run_name_ = run_name;
    leg->broker_uri_ = broker_uri;
    leg->config_path_ = scratch + "/bridge.json";
    leg->write_config();
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

void BridgeLeg::write_config() {
    const std::string name =
        run_name_ + (incarnation_ == 0 ? "" : "_" + std::to_string(incarnation_));
    // A persistent session (fixed client id): what the bridge had not
    // acknowledged when it was killed waits in mosquitto for its restart,
    // for session_expiry() after it.
    const nlohmann::json config = {
        {"mqtt",
         {{"uri", broker_uri_},
          {"client_id", "outpost-torture-bridge-" + name},
          {"shared_group", "torture-" + name},
          {"keepalive_s", 5},
          {"session_expiry_s", session_expiry().count()},
          {"reconnect_min_ms", 50},
          {"reconnect_max_ms", 500}}},
        {"rocketmq",
         {{"name_servers", rocketmq_["NAMESRV_ADDR"]},
          {"producer_group", "outpost_torture"},
          {"send_timeout_ms", 3000},
          {"max_attempts", 2},
          {"retry_pause_max_ms", 500}}},
        {"mapping",
         {{{"mqtt_filter", "outpost/+/alarm/+"},
           {"rocketmq_topic", topic_},
           {"tag", "${payload.severity}"}}}},
        {"quarantine_topic", topic_ + "_quarantine"},
        // Receipts after SEND_OK to outpost/<gatewayId>/receipt (the bridge's
        // default, spelled out: the gateway's confirmation depends on it).
        {"receipts", {{"enabled", true}}}};
    std::ofstream(config_path_) << config.dump(2);
}

std::chrono::seconds BridgeLeg::session_expiry() const {
    return options_.broker_faults > 0 ? kShortSessionExpiry : kDefaultSessionExpiry;
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

std::string BridgeLeg::reap() {
    const int status = bridge_->wait_status();
    if (!armed_ || !WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
        return "the bridge ended by itself (wait status " + std::to_string(status) +
               "): " + log_tail();
    }
    ++kills_;
    planner_.killed(run_);
    ++run_;
    return "";
}

std::string BridgeLeg::tend() {
    if (stopped_ || bridge_->running()) return "";
    const std::string ended = reap();
    return ended.empty() ? start_bridge(true) : ended;
}

std::string BridgeLeg::stop() {
    if (stopped_) return "";
    std::string ended;
    if (bridge_->running()) {
        bridge_->kill_now();
    } else {
        ended = reap();
    }
    stopped_ = true;
    stopped_at_ = std::chrono::steady_clock::now();
    return ended;
}

std::string BridgeLeg::resume(std::chrono::milliseconds down) {
    if (!stopped_) return "";
    std::this_thread::sleep_until(stopped_at_ + down);
    stopped_ = false;
    return start_bridge(true);
}

std::string BridgeLeg::replace() {
    if (!stopped_) return "";
    stopped_ = false;
    ++incarnation_;
    write_config();
    return start_bridge(true);
}

std::string BridgeLeg::disarm() {
    std::string ended;
    if (stopped_) {
        stopped_ = false;
    } else if (!bridge_->running()) {
        ended = reap();
    } else if (armed_) {
        bridge_.reset();  // SIGTERM: a clean stop, or the kill it was waiting for
    } else {
        return "";
    }
    const std::string started = start_bridge(false);
    return ended.empty() ? started : ended;
}

std::map<std::string, int> BridgeLeg::settle(const std::set<std::string>& wanted,
                                             std::chrono::seconds limit) {
    disarm();  // an end the campaign did not ask for was reported by tend()
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
