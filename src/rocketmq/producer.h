// Producer: sends messages to RocketMQ over the remoting protocol.
//
//   ProducerOptions options;
//   options.name_server_addresses = "127.0.0.1:9876";
//   Producer producer(options);
//   Result<SendReceipt> receipt =
//       producer.send("outpost_alarms", "critical", event_id, json, device_id);
//   Result<BatchReceipt> batch =
//       producer.send_batch("outpost_alarms", {{"critical", id1, json1}, {"info", id2, json2}},
//                           device_id);
//
// Queue choice: the write queues of a topic's route, sorted by broker name
// and queue id, indexed by a stable hash of the sharding key, so one device's
// events land on one queue in send order (while the route is unchanged and
// that broker is healthy). A retry after a failure avoids the failed broker
// when another broker has writable queues. An empty sharding key rotates
// over the queues. A batch goes to the queue its sharding keys pick, chosen
// at each attempt as for one message; messages whose keys pick different
// queues at that attempt go as one request per queue (send_batch).
//
// Threads: a Producer is thread-safe and owns no thread. Concurrent sends
// share one connection per broker with up to options.max_in_flight requests
// on the wire (connection.h); route lookups and queue choice are serialized.
// Each send() returns only its own message's answer; a connection failure
// fails every send outstanding on it (each then retries by its own
// max_attempts). Destroying a Producer closes its sockets; it must not be
// destroyed while a send runs.
#ifndef OUTPOST_ROCKETMQ_PRODUCER_H
#define OUTPOST_ROCKETMQ_PRODUCER_H

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/backoff.h"
#include "outpost/status.h"
#include "rocketmq/connection.h"
#include "rocketmq/frame.h"
#include "rocketmq/name_server_list.h"
#include "rocketmq/producer_options.h"
#include "rocketmq/queue_selector.h"
#include "rocketmq/route.h"
#include "rocketmq/send_message.h"
#include "rocketmq/unique_id.h"

namespace outpost::rocketmq {

// What the broker reported for a stored message.
struct SendReceipt {
    // kSendOk, or a stored-but-not-yet-durable status (10/11/12): the message
    // is in the broker and must not be resent, but its durability guarantee
    // was not met; Producer::counters() counts these separately.
    SendStatus status = SendStatus::kSendOk;
    std::int32_t response_code = 0;  // what the broker answered: 0, or 10/11/12
    std::string message_id;         // UNIQ_KEY, as mqadmin queryMsgById takes it
    std::string offset_message_id;  // the broker's storage id
    std::string broker_name;
    std::string broker_address;
    std::int32_t queue_id = 0;
    std::int64_t queue_offset = 0;
    int attempts = 0;  // 1 when the first attempt succeeded
};

// One message of a batch; the batch gives the topic.
struct BatchMessage {
    std::string tags;                                      // one tag (may be empty)
    std::string keys;                                      // space-separated (may be empty)
    std::string body;                                      // 1 byte to 4 MiB
    std::map<std::string, std::string> user_properties{};  // as in send()
    // Picks this message's queue, as send()'s; empty: the batch's sharding key.
    std::string sharding_key{};
};

// What the broker reported for a stored batch. A batch whose sharding keys
// all picked one queue (requests == 1) is on that queue, at consecutive
// offsets, in batch order. Otherwise it went as one request per queue, in
// the order of each request's first message; the queue fields name the
// first request's.
struct BatchReceipt {
    // For the whole batch, as SendReceipt::status: kSendOk only when every
    // request got SEND_OK, else the first other status a request got.
    SendStatus status = SendStatus::kSendOk;
    std::int32_t response_code = 0;        // the answer that gave `status`
    std::vector<std::string> message_ids;  // UNIQ_KEY of each message, in batch order
    // The broker's storage ids, in batch order when every answer lists one
    // per message of its request, else as the answers list them.
    std::vector<std::string> offset_message_ids;
    std::string broker_name;
    std::string broker_address;
    std::int32_t queue_id = 0;
    std::int64_t queue_offset = 0;  // the first message's; message i is at queue_offset + i
    int attempts = 0;               // 1 when the first attempt succeeded; the most of any request
    int requests = 1;               // one per queue the batch's sharding keys picked
};

// Running totals since construction. The message counts count each message
// of a batch; retries count attempts.
struct ProducerCounters {
    std::uint64_t sent_ok = 0;  // SEND_OK
    std::uint64_t stored_not_durable =
        0;                      // FLUSH_DISK_TIMEOUT, FLUSH_SLAVE_TIMEOUT, SLAVE_NOT_AVAILABLE
    std::uint64_t retries = 0;  // attempts after the first
    std::uint64_t failed = 0;   // sends that returned an error
};

class Producer final {
  public:
    // Does not connect; the first send does. An empty name server list makes
    // every send fail with kInvalidArgument.
    explicit Producer(ProducerOptions options);
    ~Producer();

    Producer(const Producer&) = delete;
    Producer& operator=(const Producer&) = delete;

    // Sends one message and waits until the broker stored it.
    //   topic         ^[%|a-zA-Z0-9_-]+$, at most 127 characters
    //   tags          one tag (may be empty); keys: space-separated (may be empty)
    //   body          1 byte to 4 MiB
    //   sharding_key  picks the queue; empty rotates
    // Success: the broker answered 0 (SEND_OK) or 10/11/12 (stored, durability
    // incomplete; see SendReceipt::status). Never resend after success.
    // Failures:
    //   kInvalidArgument  the message breaks a limit above; nothing was sent
    //   kRejected         the broker refused it for good (MESSAGE_ILLEGAL,
    //                     INVALID_PARAMETER, ...); the message names the code.
    //                     Resending the same message fails again.
    //   kPermissionDenied the broker refused our credentials or rights
    //                     (NO_PERMISSION), or TLS refused its certificate; no
    //                     further attempt was made. Not the message's fault:
    //                     hold it until the configuration is fixed.
    //   kNotFound         the topic does not exist and auto creation is off
    //   kUnavailable      every attempt met a connection failure or a busy /
    //   kTimeout          unavailable broker, or timed out. The message may still
    //                     have been stored by an attempt whose answer was lost:
    //                     resending is right, consumers dedupe on KEYS.
    Result<SendReceipt> send(const std::string& topic, const std::string& tags,
                             const std::string& keys, const std::string& body,
                             const std::string& sharding_key);

    // send() plus application properties carried with the message (see
    // OutgoingMessage::user_properties). Also kInvalidArgument, before
    // anything is sent, for a reserved or empty name or a separator byte.
    // When the send fails and `error_code` is given, *error_code is the
    // response code RocketMQ (broker or name server) answered the last
    // attempt with (16 NO_PERMISSION, 2 SYSTEM_BUSY, ...), or empty when that
    // attempt got no answer (connection refused or lost, timeout, TLS) or
    // nothing was sent (an invalid message, a route without writable queues).
    Result<SendReceipt> send(const std::string& topic, const std::string& tags,
                             const std::string& keys, const std::string& body,
                             const std::string& sharding_key,
                             const std::map<std::string, std::string>& user_properties,
                             std::optional<std::int32_t>* error_code = nullptr);

    // Sends `messages` to `topic`, each to the queue its sharding key
    // (BatchMessage::sharding_key, else `sharding_key`) picks as send()
    // would pick it, and waits until the broker stored them all. Each
    // attempt picks queues from the route it uses and the broker it avoids
    // after a failure; the messages whose keys pick the queue of the first
    // message not yet stored go in one request (a message without a key
    // goes with the first request), so keys that share a queue share a
    // request, and a route that spreads them over several queues gets one
    // request per queue, one after another, each after the previous one's
    // answer. A key's messages are always in one request, in batch order.
    // With one key (or all keys on one queue) the batch is one request.
    // Ids (UNIQ_KEY), keys, tags and user properties are per message, as
    // send() carries them.
    //   messages  1 to options.max_batch_messages, their encoding at most
    //             options.max_batch_bytes (ProducerOptions)
    // Success: as send(), for every message; the receipt says where they
    // are. Never resend after success.
    // Failures: as send(), for the batch as a whole; each request has
    // options.max_attempts attempts. kInvalidArgument (a message breaks a
    // limit of send(), the batch is empty or beyond a bound) comes before
    // anything is sent and names the message. A request the broker refused
    // was not stored, but requests before it (other queues) may have been.
    // When an answer was lost (kUnavailable, kTimeout), the request, or
    // after a broker crash some of its messages, may have been stored:
    // retries and resends send it whole, and consumers dedupe on KEYS.
    // `error_code`: as send(), for the request that failed.
    Result<BatchReceipt> send_batch(const std::string& topic,
                                    const std::vector<BatchMessage>& messages,
                                    const std::string& sharding_key,
                                    std::optional<std::int32_t>* error_code = nullptr);

    // The queue a send to `topic` with `sharding_key` picks at its first
    // attempt, by the route cached now (stale or not): messages whose keys
    // give the same queue here go in one request of send_batch() while that
    // route holds. Never asks the name server and never waits on the network.
    // Failures: kNotFound when no route of `topic` is cached yet (no send
    // to it has fetched one), kUnavailable when the route has no writable
    // queue, kInvalidArgument for an empty key (it rotates).
    Result<MessageQueue> queue_for(const std::string& topic, const std::string& sharding_key) const;

    ProducerCounters counters() const;

  private:
    // A broker's answer that a request was stored, and where.
    struct StoredAnswer {
        RemotingCommand response;
        MessageQueue queue;
        std::string broker_address;
        int attempts = 0;
    };
    // One attempt's queue choice: the queue picked and the queues it was
    // picked from (the route's write queues, less those of a broker the
    // attempt avoids).
    struct QueueChoice {
        MessageQueue queue;
        std::vector<MessageQueue> candidates;

        // Whether a message with `sharding_key` goes to `queue` at this
        // attempt: its key picks it, or it has none (it goes anywhere).
        bool takes(const std::string& sharding_key) const;
    };
    // Builds one attempt's request for the queue chosen, stamped with the
    // attempt's time. Called with mutex_ held: it must not call the producer.
    using RequestForQueue = std::function<Result<RemotingCommand>(const QueueChoice& choice,
                                                                  std::int64_t born_timestamp_ms)>;

    struct CachedRoute {
        TopicRoute route;
        std::chrono::steady_clock::time_point fetched;
    };

    // The route of `topic`, from cache unless stale or `refresh`; falls back
    // to a stale cached route when no name server answers. On failure
    // *refused_code is the last name server's error code, or empty when it
    // did not answer. Requires mutex_.
    Result<TopicRoute> route_for(const std::string& topic, bool refresh,
                                 std::optional<std::int32_t>* refused_code);
    // Asks the name servers, the last one that answered first; sets
    // *refused_code as route_for. Requires mutex_.
    Result<TopicRoute> query_name_servers(const std::string& topic,
                                          std::optional<std::int32_t>* refused_code);
    // The route through the template topic for a topic the broker will create.
    Result<TopicRoute> template_route(std::optional<std::int32_t>* refused_code);
    // The connection to `address`, created on first use; never removed, so
    // the reference stays valid after mutex_ is released. Requires mutex_.
    Connection& connection_to(const std::string& address);
    // Picks the queue for this attempt. Requires mutex_.
    QueueChoice pick_queue(const std::vector<MessageQueue>& queues,
                           const std::string& sharding_key, const std::string& avoid_broker);
    // The attempts of one request to `topic` (one message or one batch),
    // the queue picked by `sharding_key` each time; on failure *error_code
    // as send() describes. Takes mutex_ for route and queue choice, never
    // while waiting on the network for the broker's answer.
    Result<StoredAnswer> send_attempts(const std::string& topic, const std::string& sharding_key,
                                       const RequestForQueue& request_for,
                                       std::optional<std::int32_t>* error_code);
    // The fields SendReceipt and BatchReceipt share, from `answer`.
    template <typename Receipt>
    static Receipt receipt_from(const StoredAnswer& answer);
    // Counts the messages of one send or batch by its outcome.
    void count_outcome(const Status& status, SendStatus stored, std::uint64_t messages);

    const ProducerOptions options_;
    NameServerList name_servers_;  // guarded by mutex_
    UniqueIdGenerator ids_;
    mutable std::mutex mutex_;
    std::map<std::string, std::unique_ptr<Connection>> connections_;  // guarded by mutex_
    std::map<std::string, CachedRoute> routes_;                       // guarded by mutex_
    std::uint64_t round_robin_ = 0;                                   // guarded by mutex_
    Backoff retry_backoff_;      // guarded by mutex_; exact: a send's retries are few
    ProducerCounters counters_;  // guarded by mutex_
};

template <typename Receipt>
Receipt Producer::receipt_from(const StoredAnswer& answer) {
    Receipt receipt;
    receipt.status = send_status_for(answer.response.code);
    receipt.response_code = answer.response.code;
    receipt.broker_name = answer.queue.broker_name;
    receipt.broker_address = answer.broker_address;
    receipt.queue_id = static_cast<std::int32_t>(ext_field_as_int(answer.response, "queueId"));
    receipt.queue_offset = ext_field_as_int(answer.response, "queueOffset");
    receipt.attempts = answer.attempts;
    return receipt;
}

}  // namespace outpost::rocketmq

#endif  // OUTPOST_ROCKETMQ_PRODUCER_H
