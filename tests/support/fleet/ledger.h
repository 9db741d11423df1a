// What became of every alarm a simulated fleet raised: raised, acknowledged
// by the broker (a raw gateway's PUBACK, an Outpost store's SENT), receipted
// (the bridge's receipt reached the gateway; for an Outpost gateway, its
// store marked the row confirmed), and when each gateway's connections
// completed. Fleet tooling (tests/support/fleet); thread-safe: paho's
// receive thread, the gateway drivers and the orchestrator all write here.
#ifndef OUTPOST_TESTS_FLEET_LEDGER_H
#define OUTPOST_TESTS_FLEET_LEDGER_H

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace outpost::fleet {

using Steady = std::chrono::steady_clock;

// An alarm the ledger has not seen receipted yet.
struct OpenAlarm {
    int gateway = 0;
    std::string event_id;
    bool acked = false;
};

class Ledger final {
  public:
    explicit Ledger(int gateways);

    void raised(int gateway, const std::string& event_id, Steady::time_point at);
    // The broker acknowledged it (first time counts).
    void acked(int gateway, const std::string& event_id);
    // A receipt for it reached the gateway. False when the gateway raised no
    // such alarm or it was receipted already (a repeated receipt).
    bool receipted(int gateway, const std::string& event_id);
    // A connection of a gateway completed (CONNACK) at `at`.
    void connected(Steady::time_point at);
    // A publish again of an alarm: no PUBACK came (lost with its
    // connection), or (`after_receipt_timeout`) the PUBACK came and no
    // receipt within the receipt timeout.
    void republished(bool after_receipt_timeout);
    void published() { ++publishes_; }

    struct Totals {
        uint64_t raised = 0;
        uint64_t acked = 0;
        uint64_t receipted = 0;
        uint64_t publishes = 0;  // publish calls, repeats included
        uint64_t republished_unacked = 0;
        uint64_t republished_unreceipted = 0;
        uint64_t connects = 0;
    };
    Totals totals() const;

    // Alarms raised before `before` that are not receipted yet.
    std::size_t open_raised_before(Steady::time_point before) const;
    // Every alarm not receipted yet.
    std::vector<OpenAlarm> open_alarms() const;
    // Connections completed in [from, to) and the most in one second of it
    // (whole seconds counted from `from`).
    std::size_t connects_between(Steady::time_point from, Steady::time_point to) const;
    int peak_connects_per_s(Steady::time_point from, Steady::time_point to) const;

  private:
    struct Open {
        Steady::time_point raised;
        bool acked = false;
    };
    struct Gateway {
        mutable std::mutex mutex;
        std::unordered_map<std::string, Open> open;  // guarded by mutex
    };
    std::vector<std::unique_ptr<Gateway>> gateways_;
    std::atomic<uint64_t> raised_{0}, acked_{0}, receipted_{0}, publishes_{0};
    std::atomic<uint64_t> republished_unacked_{0}, republished_unreceipted_{0};
    mutable std::mutex connects_mutex_;
    std::vector<Steady::time_point> connects_;  // guarded by connects_mutex_
};

}  // namespace outpost::fleet

#endif  // OUTPOST_TESTS_FLEET_LEDGER_H
