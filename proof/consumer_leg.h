// The e2e campaign's consumer leg: outpost-consumer (the Java reference
// consumer, consumer, run through scripts/consumer.sh) reading the bridge
// leg's RocketMQ topic into a SQLite database of the campaign, SIGKILLed at
// the consumer fault points (before its COMMIT; after it, before the offset
// acknowledgement) and restarted. Its verdict: every acknowledged alarm has
// exactly one business row, and no other row exists.
#ifndef OUTPOST_PROOF_CONSUMER_LEG_H
#define OUTPOST_PROOF_CONSUMER_LEG_H

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "proof/delivery_check.h"
#include "proof/evidence.h"
#include "proof/fault_plan.h"
#include "proof/observer.h"
#include "proof/options.h"
#include "proof/verdict.h"

namespace outpost::torture {

class ConsumerLeg final {
  public:
    // Builds the consumer if needed (scripts/consumer.sh build) and starts
    // it on `topic` armed with its first fault point. nullptr with *error
    // set on any failure.
    static std::unique_ptr<ConsumerLeg> start(const CampaignOptions& options,
                                              const std::string& scratch,
                                              const std::string& name_servers,
                                              const std::string& topic, std::string* error);

    // Between gateway runs: if the consumer ended, counts its SIGKILL (any
    // other end is an error, returned) and starts it again armed with the
    // next point.
    std::string tend();
    // Counts a kill since the last tend() (*ended: an end that was not the
    // armed kill), restarts it unarmed and waits until its database holds a
    // row for every id of `wanted` (or `limit` passes); returns eventId ->
    // business rows (alarm table).
    std::map<std::string, int> settle(const std::set<std::string>& wanted,
                                      std::chrono::seconds limit, std::string* ended);
    // Dedupe records (processed_event rows); -1 if unreadable.
    long long dedupe_records() const;
    // Redelivered events the consumer dropped as already applied (its log).
    uint64_t redeliveries_dropped() const;

    uint64_t kills() const { return kills_; }
    std::string kills_per_point() const { return planner_.kills_per_point(); }
    std::string log_tail() const;

  private:
    ConsumerLeg(const CampaignOptions& options, std::string scratch);
    // If the consumer ended: counts its armed SIGKILL, or returns the other end.
    std::string reap();
    std::string start_consumer(bool armed);
    std::map<std::string, int> read_rows() const;

    const CampaignOptions options_;
    const std::string scratch_;
    std::string database_;
    std::vector<std::string> flags_;
    FaultPlanner planner_;
    uint64_t run_ = 0;
    bool armed_ = false;
    uint64_t kills_ = 0;
    std::unique_ptr<LoggedProcess> consumer_;
};

// The consumer leg's verdict, once the gateway drained and RocketMQ holds
// every acknowledged alarm: settles the consumer (unarmed, up to `limit`),
// then C1 every acknowledged alarm has a business row (else lost), C2 every
// row is an event of the gateway database (else phantom), C3 no eventId has
// more than one row and there is one dedupe record per row (else an
// integrity failure). Adds to *totals (a last consumer kill included),
// fills *report, appends *problems.
void check_consumer(ConsumerLeg& consumer, const std::string& gateway_db,
                    const faults::EvidenceLog& log, std::chrono::seconds limit, Totals* totals,
                    faults::DeliveryReport* report, std::vector<std::string>* problems);

}  // namespace outpost::torture

#endif  // OUTPOST_PROOF_CONSUMER_LEG_H
