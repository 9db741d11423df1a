// Settings of a Producer. Every field has a default that suits a bridge on a
// LAN next to its RocketMQ cluster.
#ifndef OUTPOST_ROCKETMQ_PRODUCER_OPTIONS_H
#define OUTPOST_ROCKETMQ_PRODUCER_OPTIONS_H

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

#include "outpost/status.h"
#include "rocketmq/client_security.h"

namespace outpost::rocketmq {

struct ProducerOptions {
    // Name servers, "ip:port" separated by ';' (numeric addresses only: no
    // DNS lookup may block a send). Tried in order until one answers; the one
    // that answered last is asked first next time (name_server_list.h).
    std::string name_server_addresses;

    // Told when a name server stops answering route lookups (`why`: refused,
    // no answer within request_timeout, an error code; the lookup goes on to
    // the next one) and when it answers again (`why` OK): once per change,
    // not per lookup. Called on a sending thread with the producer's lock
    // held: it must be quick and must not call the producer. Empty: not told.
    std::function<void(const std::string& address, const Status& why)> on_name_server_change;

    // Request signing and TLS, for the name servers and brokers alike.
    ClientSecurity security;

    // Producer group reported to the broker (shows up in its statistics).
    std::string producer_group = "outpost_bridge";

    // Bound on one request: connect + write + wait for the answer.
    std::chrono::milliseconds request_timeout{3000};

    // Requests on the wire at once per broker connection: concurrent send()
    // calls share one connection per broker, their answers matched by
    // opaque (connection.h); a caller beyond this bound waits for a slot
    // within request_timeout. 1 = one request at a time.
    int max_in_flight = 32;

    // Bounds of one Producer::send_batch(); a batch beyond either is refused
    // before anything is sent. max_batch_bytes bounds the request body: per
    // message its body, its properties and 22 bytes (message_batch.h). The
    // broker refuses a batch whose body exceeds its maxMessageSize (4 MiB by
    // default) with SYSTEM_ERROR, which is retried as any SYSTEM_ERROR and
    // ends in kUnavailable: keep this at or below it. The broker adds about 100 bytes
    // plus the topic name to each message it stores, within 64 KiB beyond
    // maxMessageSize per batch; 256 messages stay within that for any topic.
    int max_batch_messages = 256;
    std::size_t max_batch_bytes = 4u * 1024u * 1024u;

    // Attempts per send, the first included (a batch is retried whole). A
    // retried send may store the message twice (the first answer was lost):
    // consumers dedupe on KEYS.
    int max_attempts = 3;

    // Pause before the second attempt; doubles per attempt up to max_backoff
    // (common/backoff.h, without jitter).
    std::chrono::milliseconds initial_backoff{100};
    std::chrono::milliseconds max_backoff{2000};

    // A cached route is refreshed from the name server after this long, and
    // at once after a failure that suggests it is stale.
    std::chrono::milliseconds route_refresh_interval{30000};

    // When the name server does not know a topic, send through the route of
    // the template topic TBW102 so a broker with autoCreateTopicEnable=true
    // creates it. When false, unknown topics fail with kNotFound.
    bool auto_create_topics = true;
};

}  // namespace outpost::rocketmq

#endif  // OUTPOST_ROCKETMQ_PRODUCER_OPTIONS_H
