// SIGKILL campaign: children on one shared database, each killed at a named
// fault point (OUTPOST_FAULT), the database checked and reopened after each.
#ifndef OUTPOST_PROOF_KILL_H
#define OUTPOST_PROOF_KILL_H

#include "proof/options.h"

namespace outpost::torture {

// The child: opens the store (the restart), retries the calls the parent
// lists, runs the workload until the fault point kills it.
int kill_child(const CampaignOptions& options);
// The parent: cycles over kFaultPoints until options.cuts SIGKILLs fired.
int kill_campaign(const CampaignOptions& options);

}  // namespace outpost::torture

#endif  // OUTPOST_PROOF_KILL_H
