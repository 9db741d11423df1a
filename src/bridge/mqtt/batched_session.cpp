// DESIGN NOTE: a batch of MQTT messages is acknowledged only after RocketMQ
// said SEND_OK for the request that carried it.
//
// Wire contract: as the paho session's (mqtt_session.cpp): MQTT v5, QoS 1,
// the session's fixed client id, clean_start false with mqtt.session_expiry_s,
// the shared subscription $share/<group>/<filter>, over TCP or (ssl:// uri)
// TLS with mqtt.tls, the broker's certificate checked against the uri's
// host name. Receive Maximum
// 65535, the most packet identifiers allow: brokers do not keep to a smaller
// one when they resume a session (connect() says which), so the session
// takes whatever the broker sends and its memory is bounded by the broker's
// queue limit.
//
// Invariants:
//  1. No PUBACK before SEND_OK. A message is acknowledged (Subscriber::
//     acknowledge) only after Delivery settled it: forwarded in a batch
//     whose request got SEND_OK, or a verdict of its own (duplicate, paced,
//     quarantined with SEND_OK on the quarantine topic). The subscriber
//     sends PUBACKs in arrival order, so an acknowledged message may wait
//     for an earlier one of another device; it never goes out early.
//  2. A device's messages reach RocketMQ in arrival order. One thread sends
//     every batch, one request at a time, each after the previous one's
//     answer; BatchGrouper keeps each device's order within and across
//     batches (batch_grouper.h), and a batch of several queues (a route
//     change) goes as one request per queue with each device's messages in
//     one of them (MessageSink::send_batch). A batch RocketMQ refuses for
//     good is sent again one message at a time in the same order
//     (Delivery::forward_batch), and after a message held at a stop nothing
//     later is sent.
//  3. A failed or unanswered batch is sent again whole, with the single
//     path's pauses (Delivery), holding the thread: no receive() meanwhile,
//     so a long outage ends the connection by keep-alive. That loses
//     nothing: every message not yet acknowledged stays in the broker's
//     session.
//  4. After any connection error the held messages are dropped from memory
//     (not acknowledged) and the session reconnects with the paho session's
//     backoff (session_reconnect_backoff). The broker redelivers them, DUP
//     set; those already stored are duplicates to Delivery (RecentEventIds)
//     and acknowledged without a second send.
//  5. At a stop: no more receive(); the batch in hand finishes if RocketMQ
//     answers (Delivery gives up only after a failure), then DISCONNECT.
//     Messages not acknowledged stay in the broker's session for the next
//     session with this client id (run() then reports kHeldUnacknowledged).
#include "bridge/mqtt/batched_session.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "bridge/mqtt/batch_grouper.h"
#include "bridge/mqtt/v5/subscriber.h"
#include "common/service_log.h"

namespace outpost::bridge {
namespace {

// The longest one receive() waits, so a stop is seen at least this often.
constexpr std::chrono::milliseconds kReadSlice{100};
// The most messages, and the longest time, spent reading what has arrived
// before the batches due are sent: a steady stream (or a paced one,
// limits.max_messages_per_s) holds the sends back no longer than this.
constexpr int kArrivedMax = 1024;
constexpr std::chrono::milliseconds kArrivedFor{20};
constexpr std::uint8_t kNormalDisconnection = 0x00;

class BatchedSession final : public MqttSession {
  public:
    BatchedSession(const BridgeConfig& config, SubscriberHost host,
                   std::shared_ptr<const rocketmq::TlsContext> tls, Delivery& delivery,
                   BridgeStats& stats, const StopSignal& stop)
        : config_(config),
          host_(std::move(host)),
          tls_(std::move(tls)),
          delivery_(delivery),
          stats_(stats),
          stop_(stop),
          grouper_(static_cast<std::size_t>(config.batch.max_messages), config.batch.max_bytes,
                   std::chrono::milliseconds(config.batch.linger_ms)),
          reconnect_backoff_(session_reconnect_backoff(config.mqtt)) {}

    SessionEnd run() override {
        int failures = 0;
        while (!stop_.stop_requested()) {
            Result<std::unique_ptr<mqtt5::Subscriber>> subscriber = connect();
            if (!subscriber.is_ok()) {
                pause(subscriber.status(), ++failures);
                continue;
            }
            failures = 0;
            const Status ended = serve(**subscriber);
            grouper_.clear();  // invariant 4
            stats_.mqtt_connected(id(), false);
            if (stop_.stop_requested()) return finish(**subscriber);
            pause(ended, 1);
        }
        return SessionEnd::kClean;
    }

  private:
    const std::string& id() const { return config_.mqtt.endpoint.client_id; }

    void pause(const Status& why, int failures) {
        const std::chrono::milliseconds pause = reconnect_backoff_.delay(failures);
        log_warning("MQTT " + why.to_string() + "; next attempt in " +
                    std::to_string(pause.count()) + " ms");
        stop_.wait_for(pause);
    }

    Result<std::unique_ptr<mqtt5::Subscriber>> connect() {
        // Looked up once: no lookup can hold up a session holding messages.
        if (address_.empty()) {
            Result<std::string> address = resolve_subscriber_address(host_);
            if (!address.is_ok()) return address.status();
            address_ = *address;
        }
        const MqttEndpoint& endpoint = config_.mqtt.endpoint;
        mqtt5::SubscriberOptions options;
        options.address = address_;
        if (tls_) {
            options.tls = tls_;
            options.server_name = host_.host;
        }
        options.client_id = id();
        if (!endpoint.username.empty()) options.user_name = endpoint.username;
        if (!endpoint.password.empty()) options.password = endpoint.password;
        options.clean_start = false;
        options.session_expiry_interval_seconds = config_.mqtt.session_expiry_s;
        // As many as packet identifiers allow. mosquitto 2.0.11 resuming a
        // session sends its whole backlog regardless of a smaller Receive
        // Maximum (the subscriber would close the connection, 0x93, at
        // every reconnect), and mochi-mqtt 2 stalls a resumed session once
        // that quota is spent. Memory: the broker's queue limit times the
        // message size.
        options.receive_maximum = 65535;
        options.maximum_packet_size =
            announced_max_packet_size(config_.mqtt, config_.limits.max_payload_bytes);
        options.keep_alive_seconds = static_cast<std::uint16_t>(endpoint.keepalive.count());
        options.connect_timeout = endpoint.connect_timeout;
        auto subscriber = mqtt5::Subscriber::connect(options);
        const std::string where = endpoint.uri + " (" + address_ + ") as " + id();
        if (!subscriber.is_ok()) return subscriber.status().with_context("MQTT connect to " + where);
        std::vector<mqtt5::Subscription> subscriptions;
        for (const std::string& filter : shared_filters(config_.mqtt)) {
            subscriptions.push_back({filter, 1});
        }
        const bool resumed = (*subscriber)->session().session_present;
        const Status subscribed = (*subscriber)->subscribe(
            subscriptions, std::chrono::steady_clock::now() + endpoint.connect_timeout);
        // A resumed session keeps its subscription (as the paho session
        // does); mochi-mqtt 2 refuses a SUBSCRIBE whose packet identifier
        // one of its own redelivered PUBLISHes uses (0x91).
        const bool refused = subscribed.code() == StatusCode::kRejected ||
                             subscribed.code() == StatusCode::kPermissionDenied;
        if (!subscribed.is_ok() && !(resumed && refused)) return subscribed;
        if (!subscribed.is_ok()) {
            log_warning("MQTT " + subscribed.to_string() +
                        " (the resumed session keeps its subscription)");
        }
        stats_.mqtt_connected(id(), true);
        log_info("connected to " + where +
                 (resumed ? " (session resumed), subscribed" : " (new session), subscribed") +
                 ", batches of up to " + std::to_string(config_.batch.max_messages));
        return subscriber;
    }

    // Receives, groups, forwards and acknowledges until an error (returned)
    // or a stop (OK).
    Status serve(mqtt5::Subscriber& subscriber) {
        while (!stop_.stop_requested() && !held_at_stop_) {
            auto deadline = std::chrono::steady_clock::now() + kReadSlice;
            if (auto due = grouper_.next_due()) deadline = std::min(deadline, *due);
            Result<mqtt5::Message> message = subscriber.receive(deadline);
            if (message.is_ok()) {
                if (Status taken = take(subscriber, std::move(*message)); !taken.is_ok()) {
                    return taken;
                }
                if (Status taken = take_arrived(subscriber); !taken.is_ok()) return taken;
            } else if (message.status().code() != StatusCode::kTimeout) {
                return message.status();
            }
            if (Status sent = send_due(subscriber, std::chrono::steady_clock::now());
                !sent.is_ok()) {
                return sent;
            }
        }
        return Status::ok();
    }

    // Takes what has arrived already, without waiting, until a batch is full
    // or kArrivedMax messages or kArrivedFor went by. Nothing is read while
    // a request is out, so messages pile up in the socket meanwhile; read
    // before the next batches go, they join their groups. Otherwise a group
    // due after a request would carry only the one message read since, and a
    // backlog would leave a message or two per request. A linger that ends
    // while messages are still arriving does not stop the reading (company
    // is here); kArrivedFor bounds what that adds to it.
    Status take_arrived(mqtt5::Subscriber& subscriber) {
        const auto until = std::chrono::steady_clock::now() + kArrivedFor;
        for (int i = 0; i < kArrivedMax && !stop_.stop_requested(); ++i) {
            if (grouper_.has_full() || std::chrono::steady_clock::now() >= until) {
                return Status::ok();
            }
            Result<mqtt5::Message> message = subscriber.receive(std::chrono::steady_clock::now());
            if (!message.is_ok()) {
                return message.status().code() == StatusCode::kTimeout ? Status::ok()
                                                                       : message.status();
            }
            if (Status taken = take(subscriber, std::move(*message)); !taken.is_ok()) return taken;
        }
        return Status::ok();
    }

    // One received message: settled at once, or held for its batch.
    Status take(mqtt5::Subscriber& subscriber, mqtt5::Message received) {
        InboundMessage inbound;
        inbound.topic = std::move(received.topic);
        inbound.payload = std::move(received.payload);
        inbound.redelivered = received.dup;
        inbound.received_at = std::chrono::steady_clock::now();
        std::variant<Verdict, ReadyMessage> prepared = delivery_.prepare(std::move(inbound));
        if (auto* ready = std::get_if<ReadyMessage>(&prepared);
            ready != nullptr && grouper_.holds(ready->gateway_id, ready->event_id)) {
            // A copy of a message still held (a gateway's resend): send
            // everything held first, so this copy is settled as a duplicate
            // rather than stored twice.
            if (Status sent = send_due(subscriber, BatchGrouper::TimePoint::max()); !sent.is_ok()) {
                return sent;
            }
            prepared = delivery_.check_again(std::move(*ready));
        }
        if (auto* ready = std::get_if<ReadyMessage>(&prepared)) {
            grouper_.add(received.packet_id, std::move(*ready), std::chrono::steady_clock::now());
            return Status::ok();
        }
        return settle(subscriber, received.packet_id, std::get<Verdict>(prepared));
    }

    // Sends every batch due at `now` (TimePoint::max(): every batch held).
    Status send_due(mqtt5::Subscriber& subscriber, BatchGrouper::TimePoint now) {
        while (!held_at_stop_) {
            std::optional<Batch> batch = grouper_.take_due(now);
            if (!batch) return Status::ok();
            const std::vector<Verdict> verdicts = delivery_.forward_batch(batch->messages);
            for (std::size_t i = 0; i < verdicts.size(); ++i) {
                if (Status done = settle(subscriber, batch->packet_ids[i], verdicts[i]);
                    !done.is_ok()) {
                    return done;
                }
            }
        }
        return Status::ok();
    }

    // Acknowledges a settled message (QoS 0 has nothing to acknowledge);
    // kStopped leaves it, and everything after it, unacknowledged.
    Status settle(mqtt5::Subscriber& subscriber, std::uint16_t packet_id, Verdict verdict) {
        if (verdict == Verdict::kStopped) {
            held_at_stop_ = true;
            return Status::ok();
        }
        if (held_at_stop_ || packet_id == 0) return Status::ok();
        return subscriber.acknowledge(packet_id);
    }

    SessionEnd finish(mqtt5::Subscriber& subscriber) {
        const bool held = held_at_stop_ || subscriber.held() > 0;
        if (held) {
            log_warning("stopping with " + std::to_string(subscriber.held()) +
                        " message(s) unacknowledged; the broker redelivers them");
        }
        if (Status closed = subscriber.disconnect(kNormalDisconnection); !closed.is_ok()) {
            log_warning("MQTT " + closed.to_string());
        }
        return held ? SessionEnd::kHeldUnacknowledged : SessionEnd::kClean;
    }

    const BridgeConfig config_;
    const SubscriberHost host_;
    const std::shared_ptr<const rocketmq::TlsContext> tls_;  // null: plain TCP
    Delivery& delivery_;
    BridgeStats& stats_;
    const StopSignal& stop_;
    BatchGrouper grouper_;
    Backoff reconnect_backoff_;
    std::string address_;        // resolved once, before the first connection
    bool held_at_stop_ = false;  // a message stayed unacknowledged at a stop
};

}  // namespace

Result<std::unique_ptr<MqttSession>> make_batched_session(const BridgeConfig& config,
                                                          Delivery& delivery, BridgeStats& stats,
                                                          const StopSignal& stop) {
    Result<SubscriberHost> host = subscriber_host(config.mqtt.endpoint.uri);
    if (!host.is_ok()) return host.status();
    Result<std::shared_ptr<const rocketmq::TlsContext>> tls = subscriber_tls(config.mqtt);
    if (!tls.is_ok()) return tls.status();
    return std::unique_ptr<MqttSession>(new BatchedSession(
        config, std::move(*host), std::move(tls).value(), delivery, stats, stop));
}

}  // namespace outpost::bridge
