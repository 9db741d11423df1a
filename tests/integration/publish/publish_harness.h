// What the publisher tests share: an independent subscriber (mosquitto_sub,
// not our code and not paho), a publisher in a child process, bounded waits,
// and a look at the outbox straight from the database file.
#ifndef OUTPOST_TESTS_PUBLISH_HARNESS_H
#define OUTPOST_TESTS_PUBLISH_HARNESS_H

#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "eventually.h"
#include "mosquitto_fixture.h"
#include "outpost/publisher.h"
#include "outpost/store.h"
#include "raw_sqlite.h"
#include "store/outbox.h"
#include "store/store_internal.h"
#include "store_fixture.h"
#include "temp_dir.h"

namespace outpost::testing {

// Publisher options for a test broker: fast reconnects and retries, so that
// outcomes come quickly (no test asserts on timing). No bridge answers here,
// so receipts are off: SENT is final (the receipts tests run a bridge).
inline PublisherOptions test_publisher_options(const Mosquitto& broker) {
    PublisherOptions options;
    options.receipts = false;
    options.endpoint.uri = broker.uri();
    options.endpoint.reconnect_initial = std::chrono::milliseconds(50);
    options.endpoint.reconnect_max = std::chrono::milliseconds(400);
    options.retry_initial = std::chrono::milliseconds(20);
    options.retry_max = std::chrono::milliseconds(100);
    options.lease_retry = std::chrono::milliseconds(50);
    options.endpoint.connect_timeout = std::chrono::seconds(2);
    return options;
}

// Records `count` sample alarms spread over `devices` devices ("dev-N"),
// from `threads` threads so that group commit keeps it quick.
inline std::vector<RecordedEvent> record_alarms(Store& store, int count, int devices,
                                                int threads = 4,
                                                const std::string& device_prefix = "dev-") {
    std::vector<std::vector<RecordedEvent>> parts(static_cast<size_t>(threads));
    std::vector<std::string> errors(static_cast<size_t>(threads));
    std::vector<std::thread> workers;
    for (int t = 0; t < threads; ++t) {
        workers.emplace_back([&, t] {
            for (int i = t; i < count; i += threads) {
                auto event =
                    store.record_alarm(sample_alarm(device_prefix + std::to_string(i % devices)));
                if (!event) {
                    errors[static_cast<size_t>(t)] = event.status().to_string();
                    return;
                }
                parts[static_cast<size_t>(t)].push_back(*event);
            }
        });
    }
    for (auto& worker : workers) worker.join();
    std::vector<RecordedEvent> all;
    for (size_t t = 0; t < parts.size(); ++t) {
        if (!errors[t].empty()) throw std::runtime_error("record_alarm: " + errors[t]);
        all.insert(all.end(), parts[t].begin(), parts[t].end());
    }
    return all;
}

// One message as mosquitto_sub printed it ("-v": topic, space, payload).
struct Received {
    std::string topic;
    std::string payload;
    nlohmann::json envelope;  // parsed payload (null if not JSON)
};

// mosquitto_sub, MQTT v5, QoS 1, on "outpost/#". With `persistent` it keeps
// a session (fixed id, clean start off), so that a broker with persistence
// queues messages for it across a broker restart.
class Subscriber final {
  public:
    // `extra` goes to mosquitto_sub as is (e.g. --cafile/--cert/--key).
    Subscriber(const Mosquitto& broker, const std::string& client_id, bool persistent = false,
               const std::string& username = "", const std::string& password = "",
               const std::vector<std::string>& extra = {})
        : broker_(broker), client_id_(client_id) {
        const std::string program = find_program("mosquitto_sub");
        if (program.empty()) throw std::runtime_error("mosquitto_sub is not installed");
        std::vector<std::string> argv = {
            program, "-h",        "127.0.0.1", "-p",     std::to_string(broker.port()),
            "-V",    "mqttv5",    "-q",        "1",      "-v",
            "-t",    "outpost/#", "-i",        client_id};
        if (persistent) argv.push_back("-c");
        if (!username.empty()) argv.insert(argv.end(), {"-u", username, "-P", password});
        argv.insert(argv.end(), extra.begin(), extra.end());
        output_ = dir_.file("sub.out");
        pid_ = spawn_logged(argv, output_);
        // Ready once the broker has acknowledged the subscription.
        const std::string ready = "Sending SUBACK to " + client_id;
        if (!eventually([&] { return broker.log().find(ready) != std::string::npos; },
                        std::chrono::seconds(10))) {
            throw std::runtime_error("subscriber " + client_id + " never subscribed:\n" +
                                     broker.log_tail());
        }
    }
    ~Subscriber() { terminate_child(pid_); }

    // Everything received so far, in arrival order.
    std::vector<Received> messages() const {
        std::vector<Received> all;
        std::stringstream lines(read_file(output_));
        std::string line;
        while (std::getline(lines, line)) {
            const size_t space = line.find(' ');
            if (space == std::string::npos) continue;
            Received message{line.substr(0, space), line.substr(space + 1), nullptr};
            message.envelope = nlohmann::json::parse(message.payload, nullptr, false);
            if (message.envelope.is_discarded()) message.envelope = nullptr;
            all.push_back(std::move(message));
        }
        return all;
    }

    // eventId -> how many times it arrived, over alarm topics only.
    std::map<std::string, int> event_counts() const {
        std::map<std::string, int> counts;
        for (const auto& message : messages()) {
            if (message.topic.find("/alarm/") == std::string::npos) continue;
            if (message.envelope.is_object()) counts[message.envelope.value("eventId", "")]++;
        }
        return counts;
    }

  private:
    const Mosquitto& broker_;
    std::string client_id_;
    TempDir dir_;
    std::string output_;
    pid_t pid_ = -1;
};

// The outbox as the database file says, read from outside the library.
struct OutboxView {
    int64_t pending = 0;
    int64_t sent = 0;
    int64_t dead = 0;
    int64_t max_attempts = 0;
};

inline OutboxView outbox_view(const std::string& db_path) {
    RawSqlite db(db_path, SQLITE_OPEN_READONLY);
    OutboxView view;
    view.pending = db.integer("SELECT count(*) FROM outbox WHERE state = 0");
    view.sent = db.integer("SELECT count(*) FROM outbox WHERE state = 1");
    view.dead = db.integer("SELECT count(*) FROM outbox WHERE state = 2");
    view.max_attempts = db.integer("SELECT coalesce(max(attempts), 0) FROM outbox");
    return view;
}

// The envelope of every outbox row, by eventId, as the store gives it to a
// publisher (alarm envelopes are rebuilt from their rows, byte for byte).
inline std::map<std::string, std::string> stored_envelopes(Store& store) {
    auto reader = store::core_of(store).open_reader();
    if (!reader) throw std::runtime_error(reader.status().to_string());
    std::map<std::string, std::string> by_id;
    for (auto state :
         {store::OutboxState::kPending, store::OutboxState::kSent, store::OutboxState::kDead}) {
        auto rows = store::list_events(*reader, state, 0, 1 << 30);
        if (!rows) throw std::runtime_error(rows.status().to_string());
        for (const auto& row : *rows) by_id[row.event_id] = row.envelope;
    }
    return by_id;
}

// True if, per device, the alarms arrived with increasing seq.
inline bool arrived_in_device_order(const std::vector<Received>& messages, std::string* problem) {
    std::map<std::string, int64_t> last_seq;
    for (const auto& message : messages) {
        if (message.topic.find("/alarm/") == std::string::npos) continue;
        const std::string device = message.envelope.value("deviceId", "");
        const int64_t seq = message.envelope.value("seq", int64_t{0});
        if (seq <= last_seq[device]) {
            *problem = device + ": seq " + std::to_string(seq) + " after " +
                       std::to_string(last_seq[device]);
            return false;
        }
        last_seq[device] = seq;
    }
    return true;
}

// The publisher in a child process (publisher_child), so that it can be
// SIGKILLed mid-window and two of them can compete for one database. The
// child writes its PublisherStatus as JSON to `status_file` every few ms.
class ChildPublisher final {
  public:
    ChildPublisher(const std::string& db_path, const std::string& broker_uri,
                   const std::string& client_id, const std::string& work_dir)
        : status_file_(work_dir + "/" + client_id + ".status"),
          log_file_(work_dir + "/" + client_id + ".log") {
        pid_ = spawn_logged({OUTPOST_PUBLISHER_CHILD, db_path, broker_uri, client_id, status_file_},
                            log_file_);
    }
    ~ChildPublisher() { terminate(); }

    // The last status the child wrote (an empty object before the first).
    nlohmann::json status() const {
        auto parsed = nlohmann::json::parse(read_file(status_file_), nullptr, false);
        return parsed.is_object() ? parsed : nlohmann::json::object();
    }
    int64_t number(const char* field) const { return status().value(field, int64_t{0}); }
    bool flag(const char* field) const { return status().value(field, false); }
    std::string log() const { return read_file(log_file_); }

    void kill_hard() {
        if (pid_ <= 0) return;
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, nullptr, 0);
        pid_ = -1;
    }
    void terminate() {
        terminate_child(pid_);
        pid_ = -1;
    }

  private:
    std::string status_file_;
    std::string log_file_;
    pid_t pid_ = -1;
};

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_PUBLISH_HARNESS_H
