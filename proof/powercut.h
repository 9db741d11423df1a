// Power-cut campaign: one child per cut over the power-cut simulator VFS.
#ifndef OUTPOST_PROOF_POWERCUT_H
#define OUTPOST_PROOF_POWERCUT_H

#include <cstdint>
#include <string>

#include "proof/options.h"
#include "proof/powercut_vfs.h"
#include "proof/workload.h"

namespace outpost::torture {

// Everything one cut does, derived from (seed, index) alone.
struct CutPlan {
    uint64_t index = 0;
    testing::CutTrigger trigger;
    testing::CutPolicy policy;
    testing::DeviceModel device;
    uint64_t quota_bytes = 0;
    WorkloadPlan workload;

    std::string describe() const;
};

// The sweep: trigger kinds cycle with the index (before sync, after sync,
// during a write, during the first checkpoint write), then the cut modes
// (drop all, keep all, random with tearing), then powersafe overwrite on and
// off; the sync or write number, the sector size, the tearing seed and a
// small quota (1 run in 4, to run the quota's purge) come from the seed.
CutPlan plan_cut(const CampaignOptions& options, uint64_t index);

// The child: runs the plan until the power goes, writes the disk images.
int powercut_child(const CampaignOptions& options);
// The parent: runs the campaign, prints failures and the final line.
int powercut_campaign(const CampaignOptions& options);

}  // namespace outpost::torture

#endif  // OUTPOST_PROOF_POWERCUT_H
