// The bridge's receipt connection: a paho client of its own (client id
// "<mqtt.client_id>-receipts", clean start, same broker, credentials and
// TLS as the session), so receipts never touch the session that holds
// messages unacknowledged (mqtt_session.cpp, invariants 1 to 4): the
// session's callback may block paho's receive thread for as long as
// RocketMQ fails, and nothing here may wait behind it or make it wait.
//
// send() connects when needed (paced by common/backoff.h, jittered between
// mqtt.reconnect_min_ms and reconnect_max_ms), then starts a QoS 1 publish
// and returns; the PUBACK is counted when it comes. Paho types stay inside
// receipt_sender.cpp.
#ifndef OUTPOST_BRIDGE_MQTT_RECEIPT_SENDER_H
#define OUTPOST_BRIDGE_MQTT_RECEIPT_SENDER_H

#include <cstdint>
#include <memory>

#include "bridge/config.h"
#include "bridge/mqtt/receipt_batcher.h"
#include "outpost/status.h"

namespace outpost::bridge {

// PUBACK outcomes of receipt messages the sender started.
struct ReceiptAcks {
    int64_t acked = 0;
    int64_t failed = 0;  // refused (e.g. 0x87 not authorized) or lost
};

class MqttReceiptSender : public ReceiptSender {
  public:
    virtual ReceiptAcks acks() const = 0;
};

// Creates the client; does not connect. `config` is copied. Errors:
// kInvalidArgument when paho refuses the URI or client id.
Result<std::unique_ptr<MqttReceiptSender>> make_receipt_sender(const MqttConfig& config);

}  // namespace outpost::bridge

#endif  // OUTPOST_BRIDGE_MQTT_RECEIPT_SENDER_H
