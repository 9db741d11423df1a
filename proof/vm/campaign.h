// outpost-torture --mode vm: power cuts replayed at the flushes of an
// emulated arm64 gateway's disk, and --mode vm-run: one recorded
// run with its figures.
#ifndef OUTPOST_PROOF_VM_CAMPAIGN_H
#define OUTPOST_PROOF_VM_CAMPAIGN_H

#include "proof/options.h"

namespace outpost::torture::vm {

// Recordings of the workload until --cuts crash states are checked
// (--states-per-recording from each, --states-per-boot per check VM). Ends
// with the line "cuts=N lost=L phantom=P integrity_failures=I duplicates=D";
// exit status 0 only when L, P and I are zero and every recording was sound.
int vm_campaign(const CampaignOptions& options);

// One recording; prints its figures as JSON (alarms/s recorded and
// published, block-layer bytes and flushes per alarm). Exit status 0 when the
// run was sound.
int vm_run(const CampaignOptions& options);

}  // namespace outpost::torture::vm

#endif  // OUTPOST_PROOF_VM_CAMPAIGN_H
