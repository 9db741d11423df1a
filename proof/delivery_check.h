// The evidence chain past the gateway: holds what an independent observer
// saw (the MQTT subscriber, RocketMQ) against the gateway database and the
// evidence of what the gateway's callers were told (evidence.h).
//
// What it proves, once the gateway has drained its outbox:
//  D1. Delivered: every acknowledged alarm's outbox row is SENT, and its
//      eventId was seen by the observer at least once.
//  D2. No phantom: every eventId the observer saw is an outbox row of the
//      gateway database (published only what was committed).
//  D3. Confirmed (receipts on): every acknowledged alarm's outbox row is
//      SENT and confirmed by a receipt (the bridge saw RocketMQ's SEND_OK).
// Repeated arrivals of one eventId are counted as duplicates (at least
// once delivery), not failures.
#ifndef OUTPOST_PROOF_DELIVERY_CHECK_H
#define OUTPOST_PROOF_DELIVERY_CHECK_H

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "proof/evidence.h"

namespace outpost::faults {

struct DeliveryReport {
    uint64_t acknowledged = 0;   // acknowledged events in the evidence
    uint64_t seen = 0;           // distinct eventIds the observer saw
    uint64_t not_sent = 0;       // D1: acknowledged, row not SENT (or missing)
    uint64_t not_seen = 0;       // D1: acknowledged, never seen by the observer
    uint64_t not_confirmed = 0;  // D3: acknowledged, row not confirmed (check_confirmed)
    uint64_t phantom = 0;        // D2
    uint64_t duplicates = 0;     // arrivals beyond the first (allowed, counted)
    std::vector<std::string> problems;

    uint64_t lost() const { return not_sent + not_seen + not_confirmed; }
    bool ok() const { return lost() == 0 && phantom == 0; }
    std::string summary() const;
};

// `observer` names the place in problem lines ("mqtt subscriber",
// "rocketmq"); `seen` maps eventId -> arrivals there. With `require_sent`
// false, D1 skips the SENT state (for an observer behind the gateway's own
// MQTT broker, whose PUBACK is what SENT records). An unreadable database is
// a problem counted as not_sent for every acknowledged event.
DeliveryReport check_delivery(const std::string& db_path, const EvidenceLog& evidence,
                              const std::string& observer, const std::map<std::string, int>& seen,
                              bool require_sent);

// D3 alone: counts in not_confirmed every acknowledged event whose row is
// missing, not SENT or not confirmed. An unreadable database is a problem
// counted for every acknowledged event.
DeliveryReport check_confirmed(const std::string& db_path, const EvidenceLog& evidence);

}  // namespace outpost::faults

#endif  // OUTPOST_PROOF_DELIVERY_CHECK_H
