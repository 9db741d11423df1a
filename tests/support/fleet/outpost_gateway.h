// A gateway of the fleet as Outpost itself: an outpost::Store in a
// directory of its own and an outpost::Publisher with receipts on, as a
// gateway runs them. Its alarms count as receipted only when the store
// marks their rows confirmed (StoreAdmin::find_event), and as acknowledged
// by the broker when they are SENT. Reconnects are the publisher's own.
//
// Threads: raise() and poll() from one driver thread; the publisher runs
// its own ("outpost-pub") and shares paho's I/O threads with the rest of
// the fleet's clients.
#ifndef OUTPOST_TESTS_FLEET_OUTPOST_GATEWAY_H
#define OUTPOST_TESTS_FLEET_OUTPOST_GATEWAY_H

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ledger.h"
#include "outpost/publisher.h"
#include "outpost/store.h"
#include "outpost/store_admin.h"

namespace outpost::fleet {

struct OutpostGatewaySettings {
    std::string database;  // the store's file
    std::string uri;
    std::string gateway_id;
    std::string client_id;
    int devices = 4;
    std::chrono::milliseconds receipt_timeout{30000};
    uint64_t seed = 1;
};

class OutpostGateway final {
  public:
    // Opens the store and starts the publisher. Throws std::runtime_error
    // naming what failed.
    OutpostGateway(const OutpostGatewaySettings& settings, Ledger& ledger, int index);
    // Stops the publisher (up to a second for PUBACKs), closes the store.
    ~OutpostGateway();
    OutpostGateway(const OutpostGateway&) = delete;
    OutpostGateway& operator=(const OutpostGateway&) = delete;

    // Records `count` alarms (each durable when record_alarm returns).
    // Throws std::runtime_error when the store refuses one.
    void raise(int count, Steady::time_point now);
    // Notes a connection the publisher completed since the last call.
    void poll_connection(Steady::time_point now);
    // Reads the state of every alarm not yet confirmed: SENT is the broker's
    // acknowledgement, confirmed the receipt.
    void poll_confirmations();
    bool connected() const { return publisher_->status().connected; }
    PublisherStatus status() const { return publisher_->status(); }

  private:
    Ledger& ledger_;
    const int index_;
    const int devices_;
    std::unique_ptr<Store> store_;
    std::unique_ptr<StoreAdmin> admin_;
    std::unique_ptr<Publisher> publisher_;
    int64_t raised_ = 0;
    std::vector<std::string> unconfirmed_;
    uint64_t connects_seen_ = 0;
};

}  // namespace outpost::fleet

#endif  // OUTPOST_TESTS_FLEET_OUTPOST_GATEWAY_H
