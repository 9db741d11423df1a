// What the consumer chain tests share: outpost-consumer (consumer, run
// through scripts/consumer.sh) as a child process, its database read from
// outside (the sqlite3 and psql command-line tools), and a real gateway
// (Store + Publisher) publishing to the test's mosquitto. The bridge and
// RocketMQ parts come from tests/integration/bridge/bridge_harness.h.
//
// Test scaffolding: failures throw or fail a REQUIRE.
#ifndef OUTPOST_TESTS_E2E_CONSUMER_HARNESS_H
#define OUTPOST_TESTS_E2E_CONSUMER_HARNESS_H

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bridge_harness.h"
#include "env_file.h"
#include "outpost/publisher.h"
#include "outpost/store.h"
#include "tap_text.h"

namespace outpost::testing {

inline std::string consumer_script() {
    return std::string(OUTPOST_SOURCE_ROOT) + "/scripts/consumer.sh";
}

// Output of a shell command (stdout only), and its exit status.
inline std::string shell_output(const std::string& command, int* status = nullptr) {
    std::string output;
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) throw std::runtime_error("popen failed: " + command);
    char buffer[4096];
    for (size_t got; (got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
        output.append(buffer, got);
    const int rc = ::pclose(pipe);
    if (status != nullptr) *status = rc;
    return output;
}

// Builds the consumer's jar once per test program (seconds when nothing changed).
inline void require_consumer_built() {
    static const bool built = [] {
        int status = 0;
        const std::string output = shell_output(consumer_script() + " build 2>&1", &status);
        INFO("scripts/consumer.sh build: " << one_line(output));
        REQUIRE(status == 0);
        return true;
    }();
    (void)built;
}

// The consumer's database: a SQLite file or a fresh PostgreSQL database on
// the runner's server (OUTPOST_POSTGRES_ENV), read with the stock CLIs.
class ConsumerDatabase final {
  public:
    static ConsumerDatabase sqlite(const TempDir& dir) {
        ConsumerDatabase db;
        db.label_ = "sqlite";
        db.path_ = dir.file("alarms.db");
        db.url_ = "jdbc:sqlite:" + db.path_;
        return db;
    }
    // nullopt when the runner started no PostgreSQL.
    static std::optional<ConsumerDatabase> postgres() {
        const char* env_path = std::getenv("OUTPOST_POSTGRES_ENV");
        if (env_path == nullptr || *env_path == '\0') return std::nullopt;
        std::map<std::string, std::string> env = read_env_file(env_path);
        static std::atomic<int> counter{0};
        ConsumerDatabase db;
        db.label_ = "postgresql";
        db.pg_dir_ = env["PG_DIR"];
        db.pg_user_ = env["PG_USER"];
        const std::string name = "consumer_it_" + run_id() + "_" + std::to_string(counter++);
        db.url_ = "jdbc:postgresql://127.0.0.1:" + env["PG_PORT"] + "/" + name;
        int status = 0;
        const std::string out =
            shell_output(std::string(OUTPOST_SOURCE_ROOT) + "/scripts/postgres.sh psql " +
                             db.pg_dir_ + " -qAtc 'CREATE DATABASE " + name + "' 2>&1",
                         &status);
        INFO("CREATE DATABASE: " << one_line(out));
        REQUIRE(status == 0);
        db.pg_database_ = name;
        return db;
    }

    const std::string& label() const { return label_; }
    const std::string& url() const { return url_; }
    // Flags for outpost-consumer.
    std::vector<std::string> flags() const {
        std::vector<std::string> flags = {"--database", url_};
        if (!pg_user_.empty()) flags.insert(flags.end(), {"--database-user", pg_user_});
        return flags;
    }

    // Rows of `sql`, one per line, columns separated by '|'; "" before the
    // consumer created its tables.
    std::string query(const std::string& sql) const {
        std::string command;
        if (label_ == "sqlite") {
            command = "sqlite3 -batch '" + path_ + "' \"" + sql + "\" 2>/dev/null";
        } else {
            command = std::string(OUTPOST_SOURCE_ROOT) + "/scripts/postgres.sh psql " + pg_dir_ +
                      " -d " + pg_database_ + " -qAtc \"" + sql + "\" 2>/dev/null";
        }
        return shell_output(command);
    }
    long long count(const std::string& sql) const {
        const std::string out = query(sql);
        return out.empty() ? -1 : std::atoll(out.c_str());
    }
    // eventId -> business rows holding it.
    std::map<std::string, int> alarm_rows() const {
        std::map<std::string, int> rows;
        std::istringstream lines(query("SELECT event_id FROM alarm"));
        for (std::string line; std::getline(lines, line);) {
            if (!line.empty()) rows[line]++;
        }
        return rows;
    }

  private:
    std::string label_, url_, path_, pg_dir_, pg_user_, pg_database_;
};

// outpost-consumer as a child process (the JVM itself: scripts/consumer.sh
// execs it), its output in `dir`/NAME.log.
class ConsumerProcess final {
  public:
    ConsumerProcess(const TempDir& dir, const std::string& name, std::vector<std::string> flags)
        : dir_(dir), log_path_(dir.file(name + ".log")), flags_(std::move(flags)) {
        flags_.insert(flags_.end(), {"--client-log-dir", dir.file(name + "-client-logs")});
    }
    ~ConsumerProcess() { terminate(); }
    ConsumerProcess(const ConsumerProcess&) = delete;
    ConsumerProcess& operator=(const ConsumerProcess&) = delete;

    // Starts it; `fault` arms OUTPOST_FAULT (e.g. "consumer.after_commit:2").
    void start(const std::string& fault = "") {
        std::vector<std::string> argv = {consumer_script(), "run"};
        argv.insert(argv.end(), flags_.begin(), flags_.end());
        std::vector<std::string> env;
        for (char** e = environ; *e != nullptr; ++e) {
            if (std::string(*e).rfind("OUTPOST_FAULT=", 0) != 0) env.emplace_back(*e);
        }
        if (!fault.empty()) env.push_back("OUTPOST_FAULT=" + fault);
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 1, log_path_.c_str(),
                                         O_WRONLY | O_CREAT | O_APPEND, 0644);
        posix_spawn_file_actions_adddup2(&actions, 1, 2);
        std::vector<char*> args, envp;
        for (auto& arg : argv) args.push_back(arg.data());
        args.push_back(nullptr);
        for (auto& entry : env) envp.push_back(entry.data());
        envp.push_back(nullptr);
        const int rc = ::posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), envp.data());
        posix_spawn_file_actions_destroy(&actions);
        REQUIRE(rc == 0);
        exited_ = false;
    }
    // True while it runs; once it ended, wait_status() says how.
    bool running() {
        if (pid_ <= 0 || exited_) return false;
        if (::waitpid(pid_, &status_, WNOHANG) == pid_) exited_ = true;
        return !exited_;
    }
    bool killed_by_sigkill() {
        running();
        return exited_ && WIFSIGNALED(status_) && WTERMSIG(status_) == SIGKILL;
    }
    // SIGTERM (offsets persisted on the way out), SIGKILL after 30 s.
    // Returns the exit status of a process that ended by itself, -1 when it
    // had to be killed, was not running or died of a signal.
    int terminate() {
        int code = -1;
        if (pid_ > 0 && !exited_) {
            ::kill(pid_, SIGTERM);
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
            while (running() && std::chrono::steady_clock::now() < deadline) {
                std::this_thread::sleep_for(std::chrono::milliseconds(20));
            }
            if (!exited_) {
                ::kill(pid_, SIGKILL);
                ::waitpid(pid_, nullptr, 0);
            } else if (WIFEXITED(status_)) {
                code = WEXITSTATUS(status_);
            }
        }
        pid_ = -1;
        return code;
    }
    void kill9() {
        if (pid_ > 0 && !exited_) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
        pid_ = -1;
    }
    std::string log() const { return one_line(tail_of(read_file(log_path_), 30)); }
    std::string full_log() const { return read_file(log_path_); }

  private:
    const TempDir& dir_;
    const std::string log_path_;
    std::vector<std::string> flags_;
    pid_t pid_ = -1;
    int status_ = 0;
    bool exited_ = false;
};

// A real gateway: the Outpost store and its publisher, in this process.
class Gateway final {
  public:
    Gateway(const TempDir& dir, const std::string& gateway_id, const std::string& broker_uri) {
        StoreOptions options;
        options.gateway_id = gateway_id;
        auto store = Store::open(dir.file(gateway_id + ".db"), options);
        INFO("store: " << (store ? "" : store.status().to_string()));
        REQUIRE(store);
        store_ = std::move(*store);
        PublisherOptions publisher_options;
        publisher_options.endpoint.uri = broker_uri;
        publisher_options.endpoint.client_id = "consumer-it-" + gateway_id + "-" + run_id();
        publisher_options.endpoint.reconnect_initial = std::chrono::milliseconds(50);
        publisher_options.endpoint.reconnect_max = std::chrono::milliseconds(500);
        auto publisher = Publisher::start(*store_, publisher_options);
        INFO("publisher: " << (publisher ? "" : publisher.status().to_string()));
        REQUIRE(publisher);
        publisher_ = std::move(*publisher);
    }
    ~Gateway() {
        if (publisher_) publisher_->stop().ignore_error("tearing down: the test has made its checks");
    }

    // Records `per_device` alarms on each of `devices` devices, interleaved;
    // returns their eventIds in the order recorded.
    std::vector<RecordedEvent> record(int devices, int per_device) {
        std::vector<RecordedEvent> recorded;
        for (int n = 0; n < per_device; ++n) {
            for (int d = 0; d < devices; ++d) {
                Alarm alarm;
                alarm.device_id = "dev-" + std::to_string(d);
                alarm.alarm_type = "OVER_TEMPERATURE";
                alarm.severity = n % 2 ? Severity::kMajor : Severity::kCritical;
                alarm.value = 90.0 + n;
                alarm.unit = "C";
                auto event = store_->record_alarm(alarm);
                REQUIRE(event);
                recorded.push_back(*event);
            }
        }
        return recorded;
    }
    // Waits until every recorded alarm was PUBACKed (the outbox is empty).
    bool drained(std::chrono::seconds limit) {
        return wait_until(
            [&] {
                auto stats = store_->stats();
                return stats && stats->pending == 0;
            },
            limit);
    }

  private:
    std::unique_ptr<Store> store_;
    std::unique_ptr<Publisher> publisher_;
};

inline std::set<std::string> ids_of(const std::vector<RecordedEvent>& events) {
    std::set<std::string> ids;
    for (const RecordedEvent& event : events) ids.insert(event.event_id);
    return ids;
}

// Flags for a consumer of `topic` as `group` into `db`.
inline std::vector<std::string> consumer_flags(const std::string& topic, const std::string& group,
                                               const ConsumerDatabase& db, int batch_size = 8) {
    std::vector<std::string> flags = {"--name-servers",
                                      rocketmq_env()["NAMESRV_ADDR"],
                                      "--topic",
                                      topic,
                                      "--group",
                                      group,
                                      "--batch-size",
                                      std::to_string(batch_size),
                                      "--retry-pause-ms",
                                      "200",
                                      "--offset-persist-interval-ms",
                                      "1000"};
    const std::vector<std::string> db_flags = db.flags();
    flags.insert(flags.end(), db_flags.begin(), db_flags.end());
    return flags;
}

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_E2E_CONSUMER_HARNESS_H
