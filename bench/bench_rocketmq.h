// The RocketMQ a benchmark measures against: the one OUTPOST_ROCKETMQ_ENV
// names, or one started (and stopped) here in a temporary directory with
// scripts/rocketmq.sh and flushDiskType=SYNC_FLUSH, as production runs.
// Header-only; bench programs only (they define OUTPOST_SOURCE_ROOT).
#ifndef OUTPOST_BENCH_BENCH_ROCKETMQ_H
#define OUTPOST_BENCH_BENCH_ROCKETMQ_H

#include <sys/types.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include "rocketmq/broker_durability.h"
#include "rocketmq/connection.h"
#include "temp_dir.h"

namespace outpost::bench {

class BenchRocketMq final {
  public:
    // `program` names the bench in messages. `advertise_relay`: the broker
    // started here advertises 127.0.0.2 (bridge_bench's delaying relay).
    explicit BenchRocketMq(const char* program, bool advertise_relay = false) : program_(program) {
        const char* env_path = std::getenv("OUTPOST_ROCKETMQ_ENV");
        std::string path = env_path != nullptr ? env_path : "";
        if (path.empty()) {
            std::fprintf(stderr, "%s: starting RocketMQ (no OUTPOST_ROCKETMQ_ENV)\n", program_);
            own_dir_ = std::make_unique<testing::TempDir>();
            run(std::string("ROCKETMQ_FLUSH_DISK_TYPE=SYNC_FLUSH ") +
                (advertise_relay ? "ROCKETMQ_BROKER_IP=127.0.0.2 " : "") + OUTPOST_SOURCE_ROOT +
                "/scripts/rocketmq.sh start " + own_dir_->path());
            path = own_dir_->file("env");
        }
        read_pairs(path, '=', &env_);
        read_pairs(env_["ROCKETMQ_DIR"] + "/broker.conf", '=', &broker_conf_);
        // The settings the broker runs with, as it reports them.
        rocketmq::Connection broker(broker_address());
        auto settings = rocketmq::query_broker_settings(broker, std::chrono::seconds(10));
        durability_ = settings.is_ok() ? rocketmq::judge_broker_durability(*settings)
                                       : rocketmq::unknown_durability(settings.status());
    }
    ~BenchRocketMq() {
        if (own_dir_) {
            run(std::string(OUTPOST_SOURCE_ROOT) + "/scripts/rocketmq.sh stop " + own_dir_->path());
        }
    }
    BenchRocketMq(const BenchRocketMq&) = delete;
    BenchRocketMq& operator=(const BenchRocketMq&) = delete;

    std::string name_servers() { return env_["NAMESRV_ADDR"]; }
    std::string broker_address() { return env_["BROKER_ADDR"]; }
    // Its scripts/rocketmq.sh directory (for `rocketmq.sh admin DIR ...`).
    std::string directory() { return env_["ROCKETMQ_DIR"]; }
    // flushDiskType and brokerRole as GET_BROKER_CONFIG read them, and
    // whether SEND_OK is durable (rocketmq/broker_durability.h).
    const rocketmq::BrokerDurability& durability() const { return durability_; }
    pid_t broker_pid() { return static_cast<pid_t>(std::atoi(env_["BROKER_PID"].c_str())); }
    std::string advertised_ip() { return broker_conf_["brokerIP1"]; }

  private:
    static void read_pairs(const std::string& path, char separator,
                           std::map<std::string, std::string>* out) {
        std::ifstream file(path);
        for (std::string line; std::getline(file, line);) {
            const std::size_t at = line.find(separator);
            if (at != std::string::npos) (*out)[line.substr(0, at)] = line.substr(at + 1);
        }
    }
    void run(const std::string& command) const {
        if (std::system((command + " >&2").c_str()) != 0) {
            std::fprintf(stderr, "%s: %s failed\n", program_, command.c_str());
        }
    }

    const char* program_;
    std::unique_ptr<testing::TempDir> own_dir_;
    std::map<std::string, std::string> env_;
    std::map<std::string, std::string> broker_conf_;
    rocketmq::BrokerDurability durability_;
};

}  // namespace outpost::bench

#endif  // OUTPOST_BENCH_BENCH_ROCKETMQ_H
