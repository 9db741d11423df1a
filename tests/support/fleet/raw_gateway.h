// A gateway of the fleet as a bare MQTT v5 client (paho C++), doing what an
// Outpost publisher with receipts does, without a store: each alarm is an
// envelope built by the store's own builder (store/envelope.h), published at
// QoS 1 on outpost/<gatewayId>/alarm/<deviceId> with a window of PUBACKs,
// published again (same eventId) when its PUBACK was lost with the
// connection, or when no receipt came within the receipt timeout (doubling
// up to its maximum, jittered, as the publisher's R4); receipts are read on
// outpost/<gatewayId>/receipt
// (common/receipt_contract.h). Clean start, no paho persistence, no
// automatic reconnect: reconnects are paced by common/backoff.h (jittered),
// as the publisher's are. Everything goes through the fleet's Ledger.
//
// Threads: step() and raise() from one driver thread, which alone touches
// the alarms and calls paho. paho's receive thread only queues receipts and
// flags connection losses for it: a callback that waits for a lock held by
// a thread inside a paho call can stop paho's receive thread for every
// client of the process (paho C runs one send and one receive thread for
// all clients of a process, so every RawGateway and every Outpost publisher
// of a fleet shares them).
#ifndef OUTPOST_TESTS_FLEET_RAW_GATEWAY_H
#define OUTPOST_TESTS_FLEET_RAW_GATEWAY_H

#include <mqtt/async_client.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "common/backoff.h"
#include "ledger.h"

namespace outpost::fleet {

struct RawGatewaySettings {
    std::string uri;
    std::string gateway_id;
    std::string client_id;
    int devices = 4;
    int max_in_flight = 20;
    std::chrono::milliseconds receipt_timeout{30000};
    std::chrono::milliseconds receipt_timeout_max{600000};
    std::chrono::milliseconds reconnect_initial{500};
    std::chrono::milliseconds reconnect_max{60000};
    std::chrono::seconds keepalive{30};
    uint64_t seed = 1;
};

class RawGateway final {
  public:
    // Creates the client; connects at the first step(). `index` is the
    // gateway's place in `ledger`. Throws std::runtime_error if paho refuses
    // the URI or client id.
    RawGateway(RawGatewaySettings settings, Ledger& ledger, int index);
    // Disconnects (a second at most).
    ~RawGateway();
    RawGateway(const RawGateway&) = delete;
    RawGateway& operator=(const RawGateway&) = delete;

    // `count` new alarms, queued for publishing.
    void raise(int count, Steady::time_point now);
    // Connects or reconnects when due, reaps PUBACKs, publishes what the
    // window allows, republishes what waited too long for its receipt.
    void step(Steady::time_point now);
    bool connected() const { return connected_; }

  private:
    struct Alarm {
        std::string topic;
        std::string payload;
        mqtt::delivery_token_ptr token;  // set while in flight
        bool acked = false;
        Steady::time_point receipt_due;
        int receipt_waits = 0;  // receipt timeouts so far
        // Why it is queued again, counted when it goes out (a receipt may
        // come first and spare the publish).
        enum class Again { kNo, kUnacked, kUnreceipted } again = Again::kNo;
    };
    void apply_receipts();
    void start_connect(Steady::time_point now);
    void lost(Steady::time_point now);
    void reap_and_publish(Steady::time_point now);

    const RawGatewaySettings settings_;
    Ledger& ledger_;
    const int index_;
    std::unique_ptr<mqtt::async_client> client_;
    Backoff backoff_;          // reconnects
    Backoff receipt_backoff_;  // publishes again for want of a receipt
    std::atomic<bool> connection_ended_{false};  // set on paho's thread
    // Driver thread only:
    std::atomic<bool> connected_{false};  // read by the orchestrator too
    mqtt::token_ptr connect_token_;
    int64_t failures_ = 0;
    Steady::time_point next_connect_{};
    std::map<std::string, int64_t> seq_;  // per device
    int64_t raised_ = 0;
    std::deque<std::string> to_publish_;
    std::vector<std::string> in_flight_;
    std::map<std::string, Alarm> alarms_;  // not yet receipted
    // Receipt payloads from paho's receive thread, applied by step().
    std::mutex receipts_mutex_;
    std::vector<std::string> receipts_;  // guarded by receipts_mutex_
};

}  // namespace outpost::fleet

#endif  // OUTPOST_TESTS_FLEET_RAW_GATEWAY_H
