// An MQTT v5 subscriber whose QoS 1 acknowledgements the application gives
// (OASIS MQTT 5.0). The broker may send up to Receive Maximum messages
// before the first PUBACK; the application holds them, acknowledges each
// packet identifier when it is done with the message (for the bridge:
// after SEND_OK), in any order, and the subscriber sends the PUBACKs in the
// order the messages arrived, as MQTT requires (4.6), holding a later one
// until every earlier one is acknowledged.
//
// Threads: none of its own. One thread drives a Subscriber (it is not
// thread-safe): receive() reads packets, answers keep-alive and returns
// messages; acknowledge() writes the PUBACKs that became due. That thread
// must call receive() at least once per keep-alive interval.
//
// Lifetime of a connection: connect() to disconnect() or the first error.
// After an error (the broker closed the connection, sent a malformed packet
// or broke the protocol) the Subscriber is closed: each call returns the
// same error with code kClosed. Messages held then are not lost: the
// broker keeps them in the session and sends them again, DUP set, to the
// next connection with the same client id and clean_start false. Their
// packet identifiers belong to the old connection; the new Subscriber
// starts with none held.
//
// Not supported: QoS 2, TLS, enhanced authentication (AUTH), Will messages,
// publishing.
#ifndef OUTPOST_BRIDGE_MQTT_V5_SUBSCRIBER_H
#define OUTPOST_BRIDGE_MQTT_V5_SUBSCRIBER_H

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bridge/mqtt/v5/acknowledgement_order.h"
#include "bridge/mqtt/v5/packet_reader.h"
#include "bridge/mqtt/v5/properties.h"
#include "bridge/mqtt/v5/subscribe_packet.h"
#include "bridge/mqtt/v5/subscriber_options.h"
#include "bridge/mqtt/v5/topic_aliases.h"
#include "outpost/status.h"
#include "rocketmq/byte_stream.h"

namespace outpost::bridge::mqtt5 {

using Deadline = std::chrono::steady_clock::time_point;

// What the broker's CONNACK settled.
struct SessionState {
    bool session_present = false;                  // the broker resumed a stored session
    std::string client_id;                         // ours, or the one the broker assigned
    uint16_t keep_alive_seconds = 0;               // in force: ours or the Server Keep Alive
    uint32_t session_expiry_interval_seconds = 0;  // ours or the broker's
    uint8_t maximum_qos = 1;                       // the broker's Maximum QoS (0 or 1 matter here)
};

struct Message {
    std::string topic;  // aliases already resolved
    std::string payload;
    uint8_t qos = 0;
    bool dup = false;  // the broker sent it before (a resumed session)
    bool retain = false;
    uint16_t packet_id = 0;  // QoS 1: what acknowledge() takes; 0 for QoS 0
    Properties properties;   // user properties, content type, ...
};

class Subscriber final {
  public:
    // Connects over TCP, sends CONNECT and waits for CONNACK, all within
    // options.connect_timeout. Errors: kInvalidArgument for options that
    // cannot be sent (client id not valid UTF-8, receive_maximum 0);
    // kTimeout, kUnavailable when the broker is not reachable or closes the
    // connection; a CONNACK refusal as kPermissionDenied (bad user name or
    // password, not authorized, banned), kUnavailable (server unavailable or
    // busy, use another server) or kRejected (anything else), its message
    // naming the reason code and the broker's reason string; a malformed
    // CONNACK as kUnavailable.
    static Result<std::unique_ptr<Subscriber>> connect(const SubscriberOptions& options);

    ~Subscriber();  // closes the socket without DISCONNECT: like a crash, the session stays
    Subscriber(const Subscriber&) = delete;
    Subscriber& operator=(const Subscriber&) = delete;

    const SessionState& session() const { return session_; }

    // Subscribes and waits for SUBACK until `deadline`. Messages arriving
    // meanwhile are kept for receive(). Errors: kInvalidArgument for a filter
    // that cannot be sent (subscribe_packet.h); kPermissionDenied (0x87 Not
    // authorized) or kRejected (any other failure code) naming the filter;
    // kTimeout; the connection errors of receive().
    Status subscribe(const std::vector<Subscription>& subscriptions, Deadline deadline);

    // The next message, waiting until `deadline`; kTimeout when none came.
    // A QoS 1 message counts against Receive Maximum until it is acknowledged.
    // Errors that close the connection (kUnavailable; kClosed afterwards):
    // the stream ended; the broker sent DISCONNECT (its reason named); a
    // malformed packet or a protocol violation, including more unacknowledged
    // messages than Receive Maximum or a packet above Maximum Packet Size —
    // the subscriber then sends DISCONNECT with the matching reason code.
    Result<Message> receive(Deadline deadline);

    // The application is done with the QoS 1 message `packet_id`. Sends the
    // PUBACKs that became due (this one and later acknowledged ones, once no
    // earlier message is unacknowledged). Errors: kInvalidArgument for an
    // identifier not held or acknowledged twice (nothing changes); write
    // failures close the connection (the broker then redelivers every
    // message whose PUBACK it did not get).
    Status acknowledge(uint16_t packet_id);

    // QoS 1 messages whose PUBACK has not been sent.
    std::size_t held() const { return order_.held(); }
    // Of those, the ones acknowledged and waiting for an earlier one.
    std::size_t waiting() const { return order_.waiting(); }

    // Sends DISCONNECT with `reason_code` (0x00 Normal disconnection) and
    // closes. The session stays at the broker for its expiry interval with
    // every unacknowledged message. Idempotent; an error only says the
    // DISCONNECT may not have reached the broker.
    Status disconnect(uint8_t reason_code = 0x00);

  private:
    Subscriber(const SubscriberOptions& options, std::unique_ptr<rocketmq::ByteStream> socket);

    Status handshake();
    // Reads and handles one packet, or sends the PINGREQ that fell due.
    // kTimeout when `deadline` passed first.
    Status read_one(Deadline deadline);
    Status handle(const RawPacket& packet);
    Status handle_publish(const RawPacket& packet);
    Status write(const std::string& bytes);
    // Closes the connection for a violation by the broker: DISCONNECT with
    // `violation.reason_code`, then the socket. Returns the error.
    Status violated(const PacketError& violation);
    Status closed_by(Status cause);

    SubscriberOptions options_;
    std::unique_ptr<rocketmq::ByteStream> socket_;  // TCP, or TLS over it
    PacketReader reader_;
    TopicAliases aliases_;
    AcknowledgementOrder order_;
    SessionState session_;
    std::deque<Message> pending_;  // received, not yet handed out
    uint16_t next_packet_id_ = 1;  // for SUBSCRIBE
    std::optional<uint16_t> awaited_suback_;
    std::optional<Suback> suback_;
    std::chrono::steady_clock::time_point last_write_;
    std::optional<std::chrono::steady_clock::time_point> ping_sent_;
    Status closed_;                // error once the connection ended
    std::vector<uint16_t> ready_;  // scratch for acknowledge()
    std::string acks_;             // scratch for acknowledge()
};

}  // namespace outpost::bridge::mqtt5

#endif  // OUTPOST_BRIDGE_MQTT_V5_SUBSCRIBER_H
