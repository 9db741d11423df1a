// End-to-end SIGKILL campaign: the gateway (store + publisher) as a child
// process killed at store and publisher fault points and restarted on the
// same database, against a real mosquitto, with an independent subscriber
// as the witness of what left the gateway.
#ifndef OUTPOST_PROOF_E2E_H
#define OUTPOST_PROOF_E2E_H

#include "proof/options.h"

namespace outpost::torture {

// The child: opens the store, starts the publisher on options.child_broker,
// retries the open calls, records its alarms, waits until the outbox is
// drained and stops cleanly, unless its fault point kills it first.
int e2e_child(const CampaignOptions& options);
// The parent: mosquitto + mosquitto_sub, options.cuts killed gateway
// children, one more that drains, then the checks of checker.h and
// delivery_check.h.
int e2e_campaign(const CampaignOptions& options);

}  // namespace outpost::torture

#endif  // OUTPOST_PROOF_E2E_H
