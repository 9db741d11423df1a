#include "proof/consumer_leg.h"

#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <regex>

#include "proof/child.h"

namespace outpost::torture {
namespace {

// Small batches: more COMMITs per run, so every hit the planner picks is reached.
constexpr int kBatchSize = 4;
}  // namespace

ConsumerLeg::ConsumerLeg(const CampaignOptions& options, std::string scratch)
    : options_(options),
      scratch_(std::move(scratch)),
      planner_(fault_points_where([](const FaultPointInfo& point) {
                   return std::string(point.workload) == "consumer";
               }),
               options.seed) {}

std::unique_ptr<ConsumerLeg> ConsumerLeg::start(const CampaignOptions& options,
                                                const std::string& scratch,
                                                const std::string& name_servers,
                                                const std::string& topic, std::string* error) {
    int status = 0;
    const std::string built = run_command(options.consumer_script + " build 2>&1", &status);
    if (status != 0) {
        *error = "scripts/consumer.sh build failed: " + built;
        return nullptr;
    }
    std::unique_ptr<ConsumerLeg> leg(new ConsumerLeg(options, scratch));
    leg->database_ = scratch + "/consumer.db";
    leg->flags_ = {"--name-servers",
                   name_servers,
                   "--topic",
                   topic,
                   "--group",
                   topic + "_consumer",
                   "--batch-size",
                   std::to_string(kBatchSize),
                   "--retry-pause-ms",
                   "100",
                   "--offset-persist-interval-ms",
                   "500",
                   "--database",
                   "jdbc:sqlite:" + leg->database_,
                   "--client-log-dir",
                   scratch + "/consumer-client-logs"};
    *error = leg->start_consumer(true);
    if (!error->empty()) return nullptr;
    return leg;
}

std::string ConsumerLeg::start_consumer(bool armed) {
    std::vector<std::string> argv = {options_.consumer_script, "run"};
    argv.insert(argv.end(), flags_.begin(), flags_.end());
    std::vector<std::string> env;
    armed_ = armed;
    if (armed) env.push_back("OUTPOST_FAULT=" + planner_.fault(run_));
    std::string error;
    consumer_ = LoggedProcess::spawn(argv, scratch_ + "/consumer.log", &error, env);
    return error;
}

std::string ConsumerLeg::reap() {
    if (consumer_->running()) return "";
    const int status = consumer_->wait_status();
    if (!armed_ || !WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
        return "the consumer ended by itself (wait status " + std::to_string(status) +
               "): " + log_tail();
    }
    ++kills_;
    planner_.killed(run_);
    ++run_;
    return "";
}

std::string ConsumerLeg::tend() {
    if (consumer_->running()) return "";
    const std::string ended = reap();
    return ended.empty() ? start_consumer(true) : ended;
}

std::map<std::string, int> ConsumerLeg::settle(const std::set<std::string>& wanted,
                                               std::chrono::seconds limit, std::string* ended) {
    *ended = reap();    // a kill since the last tend() counts too
    consumer_.reset();  // SIGTERM: a clean stop, or the kill it was waiting for
    start_consumer(false);
    std::map<std::string, int> rows;
    poll_until(
        [&] {
            rows = read_rows();
            for (const std::string& id : wanted) {
                if (rows.count(id) == 0) return false;
            }
            return true;
        },
        limit);
    return rows;
}

std::map<std::string, int> ConsumerLeg::read_rows() const {
    std::map<std::string, int> rows;
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(database_.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_busy_timeout(db, 5000);
        sqlite3_stmt* statement = nullptr;
        if (sqlite3_prepare_v2(db, "SELECT event_id, count(*) FROM alarm GROUP BY event_id", -1,
                               &statement, nullptr) == SQLITE_OK) {
            while (sqlite3_step(statement) == SQLITE_ROW) {
                rows[reinterpret_cast<const char*>(sqlite3_column_text(statement, 0))] =
                    sqlite3_column_int(statement, 1);
            }
        }
        sqlite3_finalize(statement);
    }
    sqlite3_close(db);
    return rows;
}

long long ConsumerLeg::dedupe_records() const {
    long long count = -1;
    sqlite3* db = nullptr;
    if (sqlite3_open_v2(database_.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
        sqlite3_busy_timeout(db, 5000);
        sqlite3_stmt* statement = nullptr;
        if (sqlite3_prepare_v2(db, "SELECT count(*) FROM processed_event", -1, &statement,
                               nullptr) == SQLITE_OK &&
            sqlite3_step(statement) == SQLITE_ROW) {
            count = sqlite3_column_int64(statement, 0);
        }
        sqlite3_finalize(statement);
    }
    sqlite3_close(db);
    return count;
}

uint64_t ConsumerLeg::redeliveries_dropped() const {
    const std::string log = consumer_ ? consumer_->log() : "";
    static const std::regex line("dropped ([0-9]+) redelivered");
    uint64_t total = 0;
    for (auto it = std::sregex_iterator(log.begin(), log.end(), line); it != std::sregex_iterator();
         ++it) {
        total += std::strtoull((*it)[1].str().c_str(), nullptr, 10);
    }
    return total;
}

std::string ConsumerLeg::log_tail() const {
    std::string log = consumer_ ? consumer_->log() : "";
    return log.substr(log.size() > 2000 ? log.size() - 2000 : 0);
}

void check_consumer(ConsumerLeg& consumer, const std::string& gateway_db,
                    const faults::EvidenceLog& log, std::chrono::seconds limit, Totals* totals,
                    faults::DeliveryReport* report, std::vector<std::string>* problems) {
    const uint64_t kills_before = consumer.kills();
    std::string ended;
    const std::map<std::string, int> rows =
        consumer.settle(log.acknowledged_event_ids(), limit, &ended);
    if (!ended.empty()) problems->push_back(ended);
    totals->cuts += consumer.kills() - kills_before;
    *report = faults::check_delivery(gateway_db, log, "consumer database", rows, true);
    totals->lost += report->lost();
    totals->phantom += report->phantom;
    for (const std::string& line : report->problems) problems->push_back(line);
    for (const auto& [event_id, count] : rows) {
        if (count != 1) {
            totals->integrity_failures++;
            problems->push_back("consumer database: eventId " + event_id + " has " +
                                std::to_string(count) + " business rows");
        }
    }
    const long long records = consumer.dedupe_records();
    if (records != static_cast<long long>(rows.size())) {
        totals->integrity_failures++;
        problems->push_back("consumer database: " + std::to_string(records) +
                            " dedupe records for " + std::to_string(rows.size()) +
                            " business rows");
    }
}

}  // namespace outpost::torture
