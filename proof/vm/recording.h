// One recorded run of the gateway VM: a fresh ext4 data disk, the guest's
// workload through outpostd against the campaign's broker (reached through
// the stamping relay, publish_stamps.h), every write and flush of the disk
// in a block log, and the guest's evidence. Everything a crash state needs
// is derived from it afterwards, on the log's time line:
//   - calls started and acknowledged: the evidence records in the log (S
//     written before the request, A after the answer), each at the entry
//     index where its write landed (disk_layout.h);
//   - SENT marks possibly started: each published eventId at the first entry
//     QEMU could allocate after the relay saw it (publish_stamps.h).
#ifndef OUTPOST_PROOF_VM_RECORDING_H
#define OUTPOST_PROOF_VM_RECORDING_H

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "proof/evidence.h"
#include "proof/observer.h"
#include "proof/vm/block_log.h"
#include "proof/vm/qemu.h"

namespace outpost::torture::vm {

struct RecordingPlan {
    std::string prefix;  // call tokens start with it: unique per recording
    int alarms = 200;
    int connections = 4;
    std::string gateway_id = "gw-vm";
    double rate = 0;                    // alarms per second; 0: as fast as answered
    std::string retention = "0";        // outpostd's SENT retention in s, or "default"
    // outpostd's other settings: false, a campaign's (small quota and window,
    // frequent purges: crash states meet them often); true, its defaults.
    bool shipped_settings = false;
    int mark_delay_ms = -1;  // with shipped_settings: publisher.mark_delay_ms (-1: its default)
    int commit_wait_us = -1;  // with shipped_settings: database.commit_wait_us (-1: its default)
    // The data disk's ext4 mount options: docs/operations/gateway.md's advice.
    std::string mount_options = "noatime,lazytime";
    // Not empty: instead of outpostd, the flash anchor (outpost-vm-guest
    // naive) in this journal mode, "rollback" or "wal", for `alarms` rows.
    std::string naive;
};

struct Extent {
    uint64_t offset = 0;
    uint64_t length = 0;
};

struct Recording {
    std::string dir;
    std::string base_image;  // the disk before the run
    std::string disk_image;  // the disk QEMU wrote
    std::unique_ptr<BlockLog> log;
    std::vector<std::string> channel_evidence;              // S, A, F, N lines in arrival order
    std::vector<std::string> vm_lines;                      // "vm ..." lines, without "vm "
    std::vector<std::pair<size_t, std::string>> records;    // (entry, S or A line)
    std::vector<std::pair<size_t, std::string>> publishes;  // (entry, eventId)
    std::map<std::string, std::vector<Extent>> extents;     // "db", "wal", "shm"
    faults::EvidenceLog evidence;                           // the channel's
    double vm_seconds = 0;
    // Why the run itself cannot be trusted (the VM failed, evidence disagrees,
    // the replay does not reproduce the disk, an alarm never reached the
    // subscriber, ...): each is a failure of the campaign.
    std::vector<std::string> problems;
};

// Records one run in `dir` (created). nullptr with *error set only when the
// run could not happen at all (no disk, no VM); a run that went wrong
// returns with problems.
std::unique_ptr<Recording> record(const VmImages& images, const RecordingPlan& plan,
                                  MqttObserver& observer, const std::string& dir,
                                  std::string* error);

// Boots the VM once on a fresh data disk with the flash anchor
// (plan.naive): the block log and the channel's lines, nothing checked but
// that it ran. nullptr with *error set when the VM could not be run.
std::unique_ptr<Recording> record_naive(const VmImages& images, const RecordingPlan& plan,
                                        const std::string& dir, std::string* error);

// The evidence a crash state cut at entry `cut` holds the disk to: the calls
// started and acknowledged by records before the cut, and "mark started"
// for every event published before it.
faults::EvidenceLog evidence_at(const Recording& recording, size_t cut);

}  // namespace outpost::torture::vm

#endif  // OUTPOST_PROOF_VM_RECORDING_H
