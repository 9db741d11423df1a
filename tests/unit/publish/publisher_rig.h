// A publisher (publish::PublisherImpl, the real one) on a real store in a temp
// directory, talking to a ScriptedBroker instead of paho; rows are read
// back straight from the database file.
#ifndef OUTPOST_TESTS_UNIT_PUBLISH_PUBLISHER_RIG_H
#define OUTPOST_TESTS_UNIT_PUBLISH_PUBLISHER_RIG_H

#include <chrono>
#include <memory>
#include <string>

#include "eventually.h"
#include "outpost/publisher.h"
#include "outpost/store.h"
#include "publish/publisher_impl.h"
#include "raw_sqlite.h"
#include "scripted_link.h"
#include "store/outbox.h"
#include "store_fixture.h"
#include "temp_dir.h"

namespace outpost::testing {

// Fast pacing so that outcomes come quickly; no test asserts on timing
// beyond what the publisher guarantees by construction.
inline PublisherOptions quick_publisher_options() {
    PublisherOptions options;
    options.endpoint.uri = "tcp://scripted.invalid:1883";
    options.endpoint.reconnect_initial = std::chrono::milliseconds(5);
    options.endpoint.reconnect_max = std::chrono::milliseconds(20);
    options.retry_initial = std::chrono::milliseconds(5);
    options.retry_max = std::chrono::milliseconds(20);
    options.lease_retry = std::chrono::milliseconds(10);
    options.poll_interval = std::chrono::milliseconds(5);
    options.rescan_interval = std::chrono::hours(1);  // tests that want it set it
    options.purge_interval = std::chrono::hours(1);
    options.jitter_seed = 7;
    return options;
}

// One outbox row as the database file holds it.
struct StoredRow {
    int64_t state = -1;  // kPending, kSent or kDead below
    int64_t attempts = 0;
    std::string last_error;
};

class PublisherRig final {
  public:
    PublisherRig() : store_(open_store(dir_.file("outbox.db"), test_options())) {}
    ~PublisherRig() { stop().ignore_error("tearing down a test: its assertions are made"); }

    void start(const PublisherOptions& options = quick_publisher_options()) {
        publisher_ = std::make_unique<publish::PublisherImpl>(*store_, options, broker.factory());
        publisher_->launch();
    }
    Status stop() {
        if (!publisher_) return Status::ok();
        Status stopped = publisher_->stop(std::chrono::seconds(2));
        publisher_.reset();
        return stopped;
    }

    Store& store() { return *store_; }
    PublisherStatus status() const { return publisher_->status(); }

    // Records an alarm; throws if the store refuses it.
    RecordedEvent record(const std::string& device, const std::string& text = "") {
        Alarm alarm = sample_alarm(device);
        if (!text.empty()) alarm.text = text;
        auto recorded = store_->record_alarm(alarm);
        if (!recorded) throw std::runtime_error(recorded.status().to_string());
        return *recorded;
    }

    StoredRow row(const std::string& event_id) {
        RawSqlite db(dir_.file("outbox.db"), SQLITE_OPEN_READONLY);
        const std::string where = " FROM outbox WHERE event_id = '" + event_id + "'";
        StoredRow row;
        row.state = db.integer("SELECT state" + where);
        row.attempts = db.integer("SELECT attempts" + where);
        row.last_error = db.text("SELECT coalesce(last_error, '')" + where);
        return row;
    }
    bool row_in_state(const std::string& event_id, int64_t state) {
        return eventually([&] { return row(event_id).state == state; });
    }

    // Another connection writes the file, as an operator tool in another
    // process would.
    void exec_from_outside(const std::string& sql) {
        RawSqlite db(dir_.file("outbox.db"));
        db.exec(sql);
    }

    ScriptedBroker broker;

  private:
    TempDir dir_;
    std::unique_ptr<Store> store_;
    std::unique_ptr<publish::PublisherImpl> publisher_;  // declared last: stops first
};

constexpr int64_t kPending = static_cast<int64_t>(store::OutboxState::kPending);
constexpr int64_t kSent = static_cast<int64_t>(store::OutboxState::kSent);
constexpr int64_t kDead = static_cast<int64_t>(store::OutboxState::kDead);

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_UNIT_PUBLISH_PUBLISHER_RIG_H
