#include "bridge/delivery.h"

#include <algorithm>
#include <optional>
#include <utility>
#include <variant>

#include "bridge/envelope_check.h"
#include "bridge/mqtt/topic_filter.h"
#include "bridge/rocketmq/quarantine_message.h"
#include "common/backoff.h"
#include "common/fault_point.h"
#include "common/receipt_contract.h"
#include "common/service_log.h"

namespace outpost::bridge {
namespace {

// The pause after the first failed send; it doubles up to
// rocketmq.retry_pause_max_ms. No jitter: the bridge instances are few, and
// this pace is what the configuration documents.
constexpr std::chrono::milliseconds kFirstRetryPause{100};

// The shortest time between two log lines naming the gateway paced most.
constexpr std::chrono::seconds kPacedLogInterval{60};

bool is_permanent(const Status& status) {
    return status.code() == StatusCode::kRejected || status.code() == StatusCode::kInvalidArgument;
}

}  // namespace

const char* verdict_name(Verdict verdict) {
    switch (verdict) {
        case Verdict::kForwarded:
            return "forwarded";
        case Verdict::kDuplicate:
            return "duplicate";
        case Verdict::kQuarantined:
            return "quarantined";
        case Verdict::kPaced:
            return "paced";
        case Verdict::kStopped:
            return "stopped";
    }
    return "unknown";
}

Result<std::unique_ptr<Delivery>> Delivery::create(const BridgeConfig& config, MessageSink& sink,
                                                   BridgeStats& stats, const StopSignal& stop) {
    std::vector<Route> routes;
    for (const MappingRule& rule : config.mapping) {
        Result<TagTemplate> tag = TagTemplate::compile(rule.tag);
        if (!tag.is_ok()) return tag.status();
        routes.push_back(Route{rule.mqtt_filter, rule.rocketmq_topic, std::move(tag).value()});
    }
    return std::unique_ptr<Delivery>(new Delivery(config, std::move(routes), sink, stats, stop));
}

Delivery::Delivery(const BridgeConfig& config, std::vector<Route> routes, MessageSink& sink,
                   BridgeStats& stats, const StopSignal& stop)
    : config_(config),
      routes_(std::move(routes)),
      sink_(sink),
      stats_(stats),
      stop_(stop),
      recent_(config.dedupe_capacity),
      next_slot_(std::chrono::steady_clock::now()),
      budget_(config.limits.max_messages_per_s_per_gateway, kPacedLogInterval) {}

const Delivery::Route* Delivery::route_for(const std::string& topic) const {
    for (const Route& route : routes_) {
        if (topic_matches_filter(route.mqtt_filter, topic)) return &route;
    }
    return nullptr;
}

Verdict Delivery::deliver(const InboundMessage& message) {
    std::variant<Verdict, ReadyMessage> prepared = prepare(message);
    if (const auto* verdict = std::get_if<Verdict>(&prepared)) return *verdict;
    return forward_one(std::get<ReadyMessage>(prepared));
}

std::variant<Verdict, ReadyMessage> Delivery::prepare(InboundMessage message) {
    stats_.message_received(message.redelivered);
    std::variant<CheckedEnvelope, Rejection> checked =
        check_inbound(message, config_.limits, config_.identity);
    // The budget covers the quarantine copy too: it costs a RocketMQ send.
    if (const auto* rejection = std::get_if<Rejection>(&checked)) {
        if (!within_gateway_budget(message.topic)) return Verdict::kPaced;
        return quarantine(message, *rejection);
    }
    const CheckedEnvelope& envelope = std::get<CheckedEnvelope>(checked);
    if (std::lock_guard<std::mutex> lock(mutex_); recent_.contains(envelope.gateway_id, envelope.event_id)) {
        stats_.duplicate_suppressed();
        confirm(message.topic, envelope.event_id);  // receipts
        return Verdict::kDuplicate;
    }
    // After the duplicate check: a duplicate costs no send, and its receipt
    // stops the gateway's republishing.
    if (!within_gateway_budget(message.topic)) return Verdict::kPaced;
    const Route* route = route_for(message.topic);
    if (route == nullptr) {
        return quarantine(message,
                          Rejection{QuarantineReason::kUnmappedTopic,
                                    "no mapping rule matches " + message.topic, envelope.event_id});
    }
    if (!pace()) return Verdict::kStopped;

    ReadyMessage ready;
    ready.out.topic = route->rocketmq_topic;
    ready.out.tags = route->tag.render(envelope.document);
    ready.out.keys = envelope.event_id;
    ready.out.body = message.payload;  // verbatim: the gateway's bytes are the event
    ready.out.sharding_key = envelope.device_id;
    ready.queue = sink_.queue_for(ready.out.topic, ready.out.sharding_key).value_or("");
    ready.gateway_id = envelope.gateway_id;
    ready.event_id = envelope.event_id;
    ready.message = std::move(message);
    return ready;
}

Verdict Delivery::forward_one(const ReadyMessage& ready) {
    OUTPOST_FAULT_POINT("bridge.before_send");
    const auto started = std::chrono::steady_clock::now();
    Status refusal;
    switch (send_until_stored(ready.out, &refusal)) {
        case SendEnd::kStored:
            OUTPOST_FAULT_POINT("bridge.after_send");
            forwarded(ready, started);
            return Verdict::kForwarded;
        case SendEnd::kStopped:
            return Verdict::kStopped;
        case SendEnd::kRefused:
            break;
    }
    return quarantine(ready.message,
                      Rejection{QuarantineReason::kRocketMqRejected,
                                "topic " + ready.out.topic + ": " + refusal.to_string(),
                                ready.event_id});
}

std::vector<Verdict> Delivery::forward_batch(const std::vector<ReadyMessage>& batch) {
    std::vector<SinkMessage> out;
    out.reserve(batch.size());
    for (const ReadyMessage& ready : batch) out.push_back(ready.out);
    OUTPOST_FAULT_POINT("bridge.before_send");
    const auto started = std::chrono::steady_clock::now();
    Status refusal;
    const SendEnd end = attempt_until_stored(
        [this, &out](std::optional<std::int32_t>* code) { return sink_.send_batch(out, code); },
        &refusal);
    std::vector<Verdict> verdicts(batch.size(), Verdict::kStopped);
    if (end == SendEnd::kStopped) return verdicts;
    if (end == SendEnd::kStored) {
        OUTPOST_FAULT_POINT("bridge.after_send");
        stats_.batch_forwarded(batch.size());
        for (const ReadyMessage& ready : batch) forwarded(ready, started);
        std::fill(verdicts.begin(), verdicts.end(), Verdict::kForwarded);
        return verdicts;
    }
    // Refused for good, maybe for one message's sake: one at a time, so
    // only that one is quarantined; in order, none after a stopped one.
    log_warning("RocketMQ refused a batch of " + std::to_string(batch.size()) + " for topic " +
                batch.front().out.topic + " (" + refusal.to_string() +
                "); sending its messages one at a time");
    for (std::size_t i = 0; i < batch.size(); ++i) {
        verdicts[i] = forward_one(batch[i]);
        if (verdicts[i] == Verdict::kStopped) break;
    }
    return verdicts;
}

std::variant<Verdict, ReadyMessage> Delivery::check_again(ReadyMessage ready) {
    if (std::lock_guard<std::mutex> lock(mutex_); !recent_.contains(ready.gateway_id, ready.event_id)) {
        return ready;
    }
    stats_.duplicate_suppressed();
    confirm(ready.message.topic, ready.event_id);  // receipts
    return Verdict::kDuplicate;
}

void Delivery::forwarded(const ReadyMessage& ready, std::chrono::steady_clock::time_point started) {
    const auto now = std::chrono::steady_clock::now();
    const auto received = ready.message.received_at == std::chrono::steady_clock::time_point{}
                              ? started
                              : ready.message.received_at;
    using std::chrono::microseconds;
    stats_.message_forwarded(std::chrono::duration_cast<microseconds>(now - started),
                             std::chrono::duration_cast<microseconds>(now - received),
                             std::chrono::duration_cast<microseconds>(started - received));
    {
        std::lock_guard<std::mutex> lock(mutex_);
        recent_.insert(ready.gateway_id, ready.event_id);
    }
    confirm(ready.message.topic, ready.event_id);  // receipts
}

Verdict Delivery::quarantine(const InboundMessage& message, const Rejection& rejection) {
    const SinkMessage out = quarantine_message(message, rejection, config_.quarantine_topic,
                                               config_.limits.quarantine_body_bytes);
    Status refusal;
    // A quarantine topic RocketMQ refuses for good is an operator's problem
    // that holds the line like an outage: dropping the message is not allowed.
    for (;;) {
        switch (send_until_stored(out, &refusal)) {
            case SendEnd::kStored:
                stats_.message_quarantined(rejection.reason);
                answer_rejection(message, rejection);
                return Verdict::kQuarantined;
            case SendEnd::kStopped:
                return Verdict::kStopped;
            case SendEnd::kRefused:
                if (stop_.wait_for(
                        std::chrono::milliseconds(config_.rocketmq.retry_pause_max_ms))) {
                    return Verdict::kStopped;
                }
                break;
        }
    }
}

Delivery::SendEnd Delivery::send_until_stored(const SinkMessage& message, Status* refusal) {
    return attempt_until_stored(
        [this, &message](std::optional<std::int32_t>* code) { return sink_.send(message, code); },
        refusal);
}

Delivery::SendEnd Delivery::attempt_until_stored(const Attempt& attempt, Status* refusal) {
    const auto started = std::chrono::steady_clock::now();
    Backoff pause = Backoff::exact(kFirstRetryPause,
                                   std::chrono::milliseconds(config_.rocketmq.retry_pause_max_ms));
    for (int64_t failures = 1;; ++failures) {
        std::optional<std::int32_t> response_code;
        const Status sent = attempt(&response_code);
        const auto held = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::steady_clock::now() - started);
        if (sent.is_ok()) {
            stats_.holding(false, held);
            return SendEnd::kStored;
        }
        stats_.rocketmq_error(sent.code(), response_code);
        if (sent.code() == StatusCode::kPermissionDenied) return hold_until_stop(sent, held);
        if (is_permanent(sent)) {
            stats_.holding(false, held);
            *refusal = sent;
            return SendEnd::kRefused;
        }
        stats_.holding(true, held);
        if (stop_.wait_for(pause.delay(failures))) return SendEnd::kStopped;
    }
}

Delivery::SendEnd Delivery::hold_until_stop(const Status& refusal, std::chrono::milliseconds held) {
    log_error(refusal.to_string() +
              "; holding this message unacknowledged and sending nothing more: fix "
              "rocketmq.access_key / secret_file / tls (or the broker's users and ACL) and "
              "restart the bridge");
    stats_.rocketmq_refused(refusal.to_string());
    stats_.holding(true, held);
    while (!stop_.wait_for(std::chrono::hours(1))) {
    }
    return SendEnd::kStopped;
}

// Receipts: only after SEND_OK or for an id this instance stored,
// and only to the prefix of the gateway the topic names (check_inbound made
// sure the envelope's gatewayId is that level). Never blocks: the batcher
// queues and its own thread sends.
void Delivery::confirm(const std::string& topic, const std::string& event_id) {
    if (receipts_ == nullptr) return;
    if (auto receipt_topic = receipt::topic_for_event(topic, config_.identity.gateway_level)) {
        receipts_->offer(*receipt_topic, event_id);
    }
}

// Negative receipts, only after the quarantine topic's SEND_OK (the
// message is kept for operators before the gateway lets go of it), and only
// when the bridge knows whom to answer about what:
//  - the eventId must be readable (Rejection::event_id): the gateway finds
//    its row by nothing else, and an unreadable envelope has no row to free
//    in an Outpost store, which never writes one (DESIGN.md);
//  - the answer goes to the topic's gateway, which published the message
//    (the broker's ACL keeps a gateway under its own prefix), never to the
//    envelope's gatewayId, a claim another gateway could make.
void Delivery::answer_rejection(const InboundMessage& message, const Rejection& rejection) {
    if (receipts_ == nullptr || rejection.event_id.empty()) return;
    const std::vector<std::string> levels = topic_levels(message.topic);
    const int gateway_level = config_.identity.gateway_level;
    if (gateway_level < 0 || static_cast<std::size_t>(gateway_level) >= levels.size()) return;
    if (auto receipt_topic = receipt::topic_for_event(message.topic, gateway_level)) {
        receipts_->offer_rejection(
            *receipt_topic, receipt::Rejection{rejection.event_id,
                                               quarantine_reason_name(rejection.reason),
                                               rejection.detail});
    }
}

bool Delivery::within_gateway_budget(const std::string& topic) {
    if (config_.limits.max_messages_per_s_per_gateway <= 0) return true;
    const std::vector<std::string> levels = topic_levels(topic);
    const auto gateway_level = static_cast<std::size_t>(config_.identity.gateway_level);
    const std::string gateway = gateway_level < levels.size() ? levels[gateway_level] : "";
    const auto now = std::chrono::steady_clock::now();
    std::optional<PacedReport> report;
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (budget_.take(gateway, now)) return true;
        report = budget_.report_due(now);
    }
    stats_.message_paced();
    if (report) {
        log_warning("gateway \"" + report->top_gateway +
                    "\" publishes above limits.max_messages_per_s_per_gateway: " +
                    std::to_string(report->top_paced) +
                    " of its messages deferred since the last such line (" +
                    std::to_string(report->paced) + " from " +
                    std::to_string(report->gateways_paced) +
                    " gateways in all); they are neither forwarded "
                    "nor confirmed now, and each gateway publishes them again after its "
                    "receipt timeout");
    }
    return false;
}

bool Delivery::pace() {
    if (config_.limits.max_messages_per_s <= 0) return true;
    const auto interval = std::chrono::duration_cast<std::chrono::steady_clock::duration>(
        std::chrono::duration<double>(1.0 / config_.limits.max_messages_per_s));
    std::chrono::steady_clock::time_point slot;
    {
        // Each caller reserves the next slot, then waits for it unlocked.
        std::lock_guard<std::mutex> lock(mutex_);
        slot = std::max(next_slot_, std::chrono::steady_clock::now());
        next_slot_ = slot + interval;
    }
    const auto now = std::chrono::steady_clock::now();
    return slot <= now ||
           !stop_.wait_for(std::chrono::duration_cast<std::chrono::milliseconds>(slot - now));
}

}  // namespace outpost::bridge
