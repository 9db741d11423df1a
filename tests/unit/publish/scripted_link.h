// A scripted MQTT broker behind the publisher's internal link interface
// (publish/mqtt_link.h), for unit tests of the publisher's policies without
// a real broker. It keeps the interface's promises (L1-L4) the way the paho
// link does: every accepted publish gets exactly one outcome, posted to the
// publisher's Inbox from the broker's own thread ("scripted-broker"), in the
// order the broker decided them; a dropped connection posts the loss, then
// kLost for what was in flight; nothing is posted to a destroyed link;
// nothing is buffered while disconnected.
//
// The test decides each publish's fate when it arrives (a policy: ack,
// refuse, or hold until the test releases it), the CONNACK limits, and
// whether the broker is reachable; it can drop the connection at any time.
// It observes every publish, the largest number in flight at once and the
// settings each link was made with, and waits for any of it with a deadline.
#ifndef OUTPOST_TESTS_UNIT_PUBLISH_SCRIPTED_LINK_H
#define OUTPOST_TESTS_UNIT_PUBLISH_SCRIPTED_LINK_H

#include <pthread.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "publish/mqtt_link.h"

namespace outpost::testing {

// What the broker does with a publish when it arrives.
enum class Verdict { kAck, kRefuse, kHold };

struct PublishRecord {
    uint64_t tag = 0;
    std::string topic;
    std::string payload;
    std::string event_id;  // from the envelope
    std::string device_id;
    int64_t seq = 0;
    int connection = 0;  // which connect() it went out on (1, 2, ...)
    std::chrono::steady_clock::time_point at;
};

// A retained publish (the presence topic).
struct RetainedRecord {
    std::string topic;
    std::string payload;
};

class ScriptedBroker final {
  public:
    using Policy = std::function<Verdict(const PublishRecord&)>;

    ScriptedBroker() : thread_([this] { deliver_loop(); }) {}
    ~ScriptedBroker() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
        }
        changed_.notify_all();
        thread_.join();
    }
    ScriptedBroker(const ScriptedBroker&) = delete;
    ScriptedBroker& operator=(const ScriptedBroker&) = delete;

    // The factory the publisher makes its links with.
    publish::LinkFactory factory();

    // --- the script ---
    void set_policy(Policy policy) {
        std::lock_guard<std::mutex> lock(mutex_);
        policy_ = std::move(policy);
    }
    void set_refusal_reason(std::string reason) {
        std::lock_guard<std::mutex> lock(mutex_);
        refusal_reason_ = std::move(reason);
    }
    void set_limits(publish::BrokerLimits limits) {
        std::lock_guard<std::mutex> lock(mutex_);
        limits_ = limits;
    }
    // While unreachable, connect() fails with kUnavailable.
    void set_reachable(bool reachable) {
        std::lock_guard<std::mutex> lock(mutex_);
        reachable_ = reachable;
    }
    // Gives held publishes their verdict (kAck or kRefuse), oldest first.
    // `which` picks them; returns how many were released.
    int release(Verdict verdict, const std::function<bool(const PublishRecord&)>& which) {
        std::lock_guard<std::mutex> lock(mutex_);
        int released = 0;
        for (auto it = held_.begin(); it != held_.end();) {
            if (!which(it->second.record)) {
                ++it;
                continue;
            }
            enqueue_outcome(it->second.link, it->second.record.tag, verdict);
            it = held_.erase(it);
            ++released;
        }
        changed_.notify_all();
        return released;
    }
    int release_all(Verdict verdict) {
        return release(verdict, [](const PublishRecord&) { return true; });
    }
    // Which the publisher hears first when the network drops: paho may fail
    // the tokens in flight before or after it reports the loss (L2).
    enum class LossOrder { kLossFirst, kOutcomesFirst };

    // The network drops: the link is disconnected; the loss is posted, and a
    // kLost outcome for every held publish of that connection, in `order`.
    void drop_connection(LossOrder order = LossOrder::kLossFirst) {
        std::lock_guard<std::mutex> lock(mutex_);
        for (Link* link : links_) {
            if (!link->up) continue;
            link->up = false;
            publish::LinkEvent lost;
            lost.kind = publish::LinkEvent::Kind::kConnectionLost;
            lost.cause = "connection lost: scripted network failure";
            if (order == LossOrder::kOutcomesFirst) lose_held(link);
            queue_.push_back(Pending{link, std::move(lost), false});
            if (order == LossOrder::kLossFirst) lose_held(link);
        }
        changed_.notify_all();
    }

    // --- observations ---
    std::vector<PublishRecord> publishes() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return publishes_;
    }
    std::vector<PublishRecord> publishes_of(const std::string& event_id) const {
        std::vector<PublishRecord> found;
        for (const PublishRecord& record : publishes()) {
            if (record.event_id == event_id) found.push_back(record);
        }
        return found;
    }
    std::vector<RetainedRecord> retained() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return retained_;
    }
    std::vector<publish::LinkSettings> settings_seen() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return settings_seen_;
    }
    // Connections made, and connect() calls (refused ones included).
    int connects() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return connects_;
    }
    // A message arrives on `topic` for every connected link (a receipt
    // from the bridge): posted as a kMessage event after what was queued.
    void send_message(const std::string& topic, const std::string& payload) {
        std::lock_guard<std::mutex> lock(mutex_);
        for (Link* link : links_) {
            if (!link->up) continue;
            publish::LinkEvent event;
            event.kind = publish::LinkEvent::Kind::kMessage;
            event.topic = topic;
            event.payload = payload;
            queue_.push_back(Pending{link, std::move(event), false});
        }
        changed_.notify_all();
    }
    int connect_attempts() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return connect_attempts_;
    }
    int held() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return static_cast<int>(held_.size());
    }
    // Publishes without a posted outcome, now and at most so far.
    int in_flight() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return in_flight_;
    }
    int max_in_flight() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return max_in_flight_;
    }

    // Waits until `done()` (called under the broker's lock: it may only use
    // the *_locked observers below) holds, re-checking at every change of the
    // broker, or `limit` passes. Returns whether it held.
    bool wait_until(const std::function<bool()>& done,
                    std::chrono::milliseconds limit = std::chrono::seconds(20)) {
        std::unique_lock<std::mutex> lock(mutex_);
        return changed_.wait_for(lock, limit, done);
    }
    size_t publish_count_locked() const { return publishes_.size(); }
    int held_locked() const { return static_cast<int>(held_.size()); }
    int in_flight_locked() const { return in_flight_; }
    int connects_locked() const { return connects_; }
    int connect_attempts_locked() const { return connect_attempts_; }

  private:
    class Link;

    struct Held {
        Link* link;
        PublishRecord record;
    };
    struct Pending {
        Link* link;
        publish::LinkEvent event;
        bool counts_in_flight;  // an outcome (not a loss notice)
    };

    // One link per lease, as the publisher makes them.
    class Link final : public publish::MqttLink {
      public:
        Link(ScriptedBroker& broker, publish::Inbox& inbox, const Clock& clock)
            : broker_(broker), inbox_(inbox), clock_(clock) {}
        ~Link() override { broker_.detach(this); }

        Result<publish::BrokerLimits> connect() override { return broker_.connect(this); }
        Status publish(const std::string& topic, const std::string& payload,
                       uint64_t tag) override {
            return broker_.publish(this, topic, payload, tag);
        }
        Status publish_retained(const std::string& topic, const std::string& payload,
                                std::chrono::milliseconds) override {
            return broker_.publish_retained(this, topic, payload);
        }
        // Subscribing succeeds; messages arrive only from send_message().
        Status subscribe(const std::string&, std::chrono::milliseconds) override {
            return Status::ok();
        }
        Status disconnect(std::chrono::milliseconds) override {
            broker_.disconnect(this);
            return Status::ok();
        }
        bool connected() const override { return broker_.is_connected(this); }

        bool up = false;     // connected; guarded by the broker's mutex
        int connection = 0;  // guarded by the broker's mutex
        ScriptedBroker& broker_;
        publish::Inbox& inbox_;
        const Clock& clock_;
    };

    Result<publish::BrokerLimits> connect(Link* link) {
        std::lock_guard<std::mutex> lock(mutex_);
        ++connect_attempts_;
        changed_.notify_all();
        if (!reachable_) {
            return Status::error(StatusCode::kUnavailable,
                                 "connect to scripted broker: connection refused");
        }
        link->up = true;
        link->connection = ++connects_;
        return limits_;
    }

    Status publish(Link* link, const std::string& topic, const std::string& payload, uint64_t tag) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!link->up) {
            return Status::error(StatusCode::kUnavailable,
                                 "publishing to " + topic + ": not connected (scripted)");
        }
        PublishRecord record;
        record.tag = tag;
        record.topic = topic;
        record.payload = payload;
        const auto envelope = nlohmann::json::parse(payload, nullptr, false);
        if (envelope.is_object()) {
            record.event_id = envelope.value("eventId", "");
            record.device_id = envelope.value("deviceId", "");
            record.seq = envelope.value("seq", int64_t{0});
        }
        record.connection = link->connection;
        record.at = std::chrono::steady_clock::now();
        publishes_.push_back(record);
        max_in_flight_ = std::max(max_in_flight_, ++in_flight_);
        const Verdict verdict = policy_ ? policy_(record) : Verdict::kAck;
        if (verdict == Verdict::kHold) {
            held_.emplace(tag, Held{link, std::move(record)});
        } else {
            enqueue_outcome(link, tag, verdict);
        }
        changed_.notify_all();
        return Status::ok();
    }

    Status publish_retained(Link* link, const std::string& topic, const std::string& payload) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!link->up) {
            return Status::error(StatusCode::kUnavailable, "not connected (scripted)");
        }
        retained_.push_back(RetainedRecord{topic, payload});
        changed_.notify_all();
        return Status::ok();
    }

    // A clean DISCONNECT: no loss notice; what was in flight fails.
    void disconnect(Link* link) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!link->up) return;
        link->up = false;
        lose_held(link);
        changed_.notify_all();
    }

    bool is_connected(const Link* link) const {
        std::lock_guard<std::mutex> lock(mutex_);
        return link->up;
    }

    void attach(Link* link, const publish::LinkSettings& settings) {
        std::lock_guard<std::mutex> lock(mutex_);
        links_.push_back(link);
        settings_seen_.push_back(settings);
    }

    // L3: after this, nothing is posted to the link's inbox.
    void detach(Link* link) {
        std::lock_guard<std::mutex> lock(mutex_);
        links_.erase(std::remove(links_.begin(), links_.end(), link), links_.end());
        for (auto it = held_.begin(); it != held_.end();) {
            if (it->second.link == link) {
                --in_flight_;
                it = held_.erase(it);
            } else {
                ++it;
            }
        }
        for (Pending& pending : queue_) {
            if (pending.link != link) continue;
            if (pending.counts_in_flight) --in_flight_;
            pending.link = nullptr;
        }
        changed_.notify_all();
    }

    // Requires mutex_.
    void enqueue_outcome(Link* link, uint64_t tag, Verdict verdict) {
        publish::LinkEvent event;
        event.kind = publish::LinkEvent::Kind::kOutcome;
        event.outcome.tag = tag;
        if (verdict == Verdict::kRefuse) {
            event.outcome.kind = publish::PublishOutcome::Kind::kRefused;
            event.outcome.reason = refusal_reason_;
        } else {
            event.outcome.kind = publish::PublishOutcome::Kind::kAcked;
        }
        queue_.push_back(Pending{link, std::move(event), true});
    }

    // Requires mutex_. Every held publish of `link` fails without a verdict.
    void lose_held(Link* link) {
        for (auto it = held_.begin(); it != held_.end();) {
            if (it->second.link != link) {
                ++it;
                continue;
            }
            publish::LinkEvent event;
            event.kind = publish::LinkEvent::Kind::kOutcome;
            event.outcome.tag = it->first;
            event.outcome.kind = publish::PublishOutcome::Kind::kLost;
            event.outcome.reason = "publish abandoned by the client (scripted loss)";
            queue_.push_back(Pending{link, std::move(event), true});
            it = held_.erase(it);
        }
    }

    // The broker's thread: posts outcomes and losses in the order decided.
    void deliver_loop() {
        pthread_setname_np(pthread_self(), "scripted-broker");
        std::unique_lock<std::mutex> lock(mutex_);
        for (;;) {
            changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
            if (stopping_) return;
            Pending pending = std::move(queue_.front());
            queue_.pop_front();
            if (pending.link != nullptr) {
                if (pending.event.kind == publish::LinkEvent::Kind::kOutcome) {
                    pending.event.outcome.at_boot_us = pending.link->clock_.boot_us();
                }
                // Posted under the lock, so detach() cannot race it (L3).
                pending.link->inbox_.post_link_event(std::move(pending.event));
                if (pending.counts_in_flight) --in_flight_;
            }
            changed_.notify_all();
        }
    }

    mutable std::mutex mutex_;
    std::condition_variable changed_;
    Policy policy_;                                                       // guarded by mutex_
    std::string refusal_reason_ = "PUBACK reason 0x87 (Not authorized)";  // guarded
    publish::BrokerLimits limits_;                                        // guarded by mutex_
    bool reachable_ = true;                                               // guarded by mutex_
    std::vector<Link*> links_;                                            // guarded by mutex_
    std::map<uint64_t, Held> held_;                                       // guarded, by tag
    std::deque<Pending> queue_;                                           // guarded by mutex_
    std::vector<PublishRecord> publishes_;                                // guarded by mutex_
    std::vector<RetainedRecord> retained_;                                // guarded by mutex_
    std::vector<publish::LinkSettings> settings_seen_;                    // guarded by mutex_
    int connects_ = 0;                                                    // guarded by mutex_
    int connect_attempts_ = 0;                                            // guarded by mutex_
    int in_flight_ = 0;                                                   // guarded by mutex_
    int max_in_flight_ = 0;                                               // guarded by mutex_
    bool stopping_ = false;                                               // guarded by mutex_
    std::thread thread_;  // started last, after every member it reads
};

inline publish::LinkFactory ScriptedBroker::factory() {
    return [this](const publish::LinkSettings& settings, publish::Inbox& inbox,
                  const Clock& clock) -> Result<std::unique_ptr<publish::MqttLink>> {
        auto link = std::make_unique<Link>(*this, inbox, clock);
        attach(link.get(), settings);
        return std::unique_ptr<publish::MqttLink>(std::move(link));
    };
}

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_UNIT_PUBLISH_SCRIPTED_LINK_H
