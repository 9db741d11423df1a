// The bridge's per-message pipeline: check, dedupe, map, send, and decide
// whether the MQTT message may now be acknowledged.
//
// Contract with the MQTT side (mqtt_session.cpp holds the design note):
// deliver() returns kForwarded, kDuplicate or kQuarantined only once the
// message is safely stored in RocketMQ (SEND_OK) or was already forwarded
// by this instance; the caller then acknowledges it. It returns kPaced,
// which the caller acknowledges too, for a message of a gateway over
// limits.max_messages_per_s_per_gateway (gateway_budget.h): nothing is sent
// and no receipt offered, so the gateway, waiting for one, publishes it
// again (the configuration refuses the limit without receipts). It returns kStopped
// only when a stop was requested while RocketMQ failed; the caller must
// then NOT acknowledge (the broker redelivers to the next session).
// While RocketMQ fails, deliver() holds the message and retries with
// pauses doubling up to rocketmq.retry_pause_max_ms; it never gives up on
// a transient failure. When RocketMQ refuses the bridge itself (wrong access
// key or secret, no permission, an untrusted certificate: kPermissionDenied)
// it logs that once, shows it in the status and holds the message without
// resending until the stop (a restart with the fixed configuration resumes).
#ifndef OUTPOST_BRIDGE_DELIVERY_H
#define OUTPOST_BRIDGE_DELIVERY_H

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <variant>
#include <vector>

#include "bridge/config.h"
#include "bridge/gateway_budget.h"
#include "bridge/message_sink.h"
#include "bridge/mqtt/inbound_message.h"
#include "bridge/mqtt/receipt_batcher.h"
#include "bridge/ops/bridge_stats.h"
#include "bridge/quarantine_reason.h"
#include "bridge/recent_event_ids.h"
#include "bridge/rocketmq/tag_template.h"
#include "bridge/stop_signal.h"
#include "outpost/status.h"

namespace outpost::bridge {

enum class Verdict {
    kForwarded,    // sent to the mapped topic, SEND_OK
    kDuplicate,    // forwarded before by this instance; not sent again
    kQuarantined,  // sent to the quarantine topic, SEND_OK
    kPaced,        // its gateway is over its budget: not sent, not confirmed
    kStopped,      // stop requested while RocketMQ failed: do not acknowledge
};

const char* verdict_name(Verdict verdict);

// A message Delivery::prepare() found fit to forward: checked, not a
// duplicate, within its gateway's budget, mapped and paced.
struct ReadyMessage {
    InboundMessage message;  // as received: quarantined from this if RocketMQ refuses it
    SinkMessage out;         // what goes to RocketMQ; out.sharding_key is the device
    // The queue out.sharding_key picked when prepare() ran (MessageSink::
    // queue_for), "" when the sink could not tell: what the batched path
    // groups by. The send picks again by the route it uses then.
    std::string queue;
    std::string gateway_id;
    std::string event_id;
};

// Thread-safe: every MQTT session's callback thread calls deliver() (with
// mqtt.sessions > 1, concurrently); the remembered eventIds and the pace
// are shared by all sessions of the instance. The sink, stats and stop
// signal are borrowed, must outlive the Delivery, and must be thread-safe.
class Delivery final {
  public:
    // Fails with kInvalidArgument when a mapping rule's tag does not compile
    // (parse_bridge_config already refuses such configurations).
    static Result<std::unique_ptr<Delivery>> create(const BridgeConfig& config, MessageSink& sink,
                                                    BridgeStats& stats, const StopSignal& stop);

    // The single path: prepare(), then forward the message alone.
    Verdict deliver(const InboundMessage& message);

    // The batched path (bridge/mqtt/batched_session.h) in two steps.
    //
    // Counts the message received and settles what needs no send of its
    // own: a duplicate (kDuplicate, its receipt offered), a message of a
    // gateway over its budget (kPaced), one that fails the checks or has no
    // mapping (sent to the quarantine topic alone, paced as the single path
    // does: kQuarantined, or kStopped). Otherwise waits for its forwarding
    // slot (limits.max_messages_per_s; kStopped on a stop meanwhile) and
    // returns it ready to send, with the queue its device maps to now.
    std::variant<Verdict, ReadyMessage> prepare(InboundMessage message);
    // Sends `batch` (1 or more ready messages of one RocketMQ topic, in
    // arrival order; their devices may differ) with MessageSink::
    // send_batch: one request per queue the devices pick at the send, each
    // device's messages in order in one request. With the single path's
    // retries: a failed or unanswered batch is sent again whole,
    // kPermissionDenied holds it until the stop. After SEND_OK each is
    // remembered, counted and confirmed. A batch RocketMQ refuses for good
    // (kRejected, kInvalidArgument: maybe one message's fault) is sent
    // again one message at a time as deliver() sends, which quarantines
    // the refused one. One verdict per message, in order: kForwarded or
    // kQuarantined (acknowledge it), or kStopped (a stop came while
    // RocketMQ failed: acknowledge neither it nor any after it, which are
    // kStopped too and were not sent, so nothing of a device is stored
    // after a message of it that stays unacknowledged).
    std::vector<Verdict> forward_batch(const std::vector<ReadyMessage>& batch);
    // For a second copy of a message that was still held when this one
    // arrived (a gateway's resend), once the first has been sent:
    // kDuplicate (counted, its receipt offered) when the first was stored,
    // else `ready` back, to be held and sent itself.
    std::variant<Verdict, ReadyMessage> check_again(ReadyMessage ready);

    // Receipts: from now on every kForwarded and kDuplicate verdict offers
    // the eventId to `receipts` for the receipt topic of the gateway the
    // message came from, and a kQuarantined verdict a rejection when the
    // message can be answered (answer_rejection). Borrowed; must outlive
    // the Delivery.
    void attach_receipts(ReceiptBatcher& receipts) { receipts_ = &receipts; }

  private:
    struct Route {
        std::string mqtt_filter;
        std::string rocketmq_topic;
        TagTemplate tag;
    };
    enum class SendEnd { kStored, kRefused, kStopped };
    // One request to RocketMQ: sets the response code, returns the result.
    using Attempt = std::function<Status(std::optional<std::int32_t>*)>;

    Delivery(const BridgeConfig& config, std::vector<Route> routes, MessageSink& sink,
             BridgeStats& stats, const StopSignal& stop);

    const Route* route_for(const std::string& topic) const;
    Verdict quarantine(const InboundMessage& message, const Rejection& rejection);
    // Forwards one ready message alone: kForwarded, kQuarantined (RocketMQ
    // refused it) or kStopped.
    Verdict forward_one(const ReadyMessage& ready);
    // SEND_OK for `ready` `started` ago: remember, count, confirm.
    void forwarded(const ReadyMessage& ready, std::chrono::steady_clock::time_point started);
    // Sends until SEND_OK (kStored), a permanent refusal (kRefused, with
    // `refusal` set) or a stop during failures (kStopped).
    SendEnd send_until_stored(const SinkMessage& message, Status* refusal);
    // The same for any request.
    SendEnd attempt_until_stored(const Attempt& attempt, Status* refusal);
    // Reports `refusal` (kPermissionDenied) and sleeps until the stop.
    SendEnd hold_until_stop(const Status& refusal, std::chrono::milliseconds held);
    // Takes a slot of the budget of the gateway `topic` names
    // (limits.max_messages_per_s_per_gateway); false, counted and now and
    // then logged, when the gateway is over it.
    bool within_gateway_budget(const std::string& topic);
    // Waits for the next forwarding slot under limits.max_messages_per_s;
    // false when a stop was requested meanwhile.
    bool pace();
    // Offers a receipt for `event_id`, which arrived on `topic`.
    void confirm(const std::string& topic, const std::string& event_id);
    // Offers a negative receipt for a message quarantined for `rejection`,
    // when its eventId was readable and its topic's gateway is the one that
    // published it.
    void answer_rejection(const InboundMessage& message, const Rejection& rejection);

    const BridgeConfig config_;
    const std::vector<Route> routes_;
    MessageSink& sink_;
    BridgeStats& stats_;
    const StopSignal& stop_;
    std::mutex mutex_;                                 // never held while sending or waiting
    RecentEventIds recent_;                            // guarded by mutex_
    std::chrono::steady_clock::time_point next_slot_;  // guarded by mutex_
    GatewayBudget budget_;                             // guarded by mutex_
    ReceiptBatcher* receipts_ = nullptr;  // receipts; null: off; offer() is thread-safe
};

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_DELIVERY_H
