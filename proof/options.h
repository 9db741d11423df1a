// Command line of outpost-torture, and the per-run plans derived from it.
// Everything a run does follows from (seed, run index) and the options, so a
// failing run can be repeated alone with --only.
#ifndef OUTPOST_PROOF_OPTIONS_H
#define OUTPOST_PROOF_OPTIONS_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace outpost::torture {

enum class Mode { kPowercut, kKill, kE2e, kVm, kVmRun };

struct CampaignOptions {
    Mode mode = Mode::kPowercut;
    uint64_t cuts = 100;  // power cuts, or SIGKILLs that fired
    uint64_t seed = 1;
    int workers = 4;
    int alarms_per_run = 120;
    std::string dir;  // parent of the scratch directory; empty: $TMPDIR or /tmp
    bool keep_failures = false;
    std::optional<uint64_t> only;  // run just this index (powercut mode)
    bool verbose = false;          // one line per run
    // e2e: the bridge leg runs when rocketmq_env names the env file of
    // `scripts/rocketmq.sh start DIR` (--rocketmq, or OUTPOST_ROCKETMQ_ENV).
    std::string rocketmq_env;
    std::string bridge_binary;    // outpost-bridge; default: next to this program
    std::string rocketmq_script;  // scripts/rocketmq.sh, for mqadmin (found at run time)
    // e2e with RocketMQ: broker faults (broker_faults.h), one per run until
    // this many fired; 0 = none.
    uint64_t broker_faults = 0;
    // e2e with RocketMQ: the gateway reads the bridge's receipts, publishes
    // again what none confirmed, and must end with every acknowledged alarm
    // confirmed (--no-receipts: SENT is final, as without our bridge).
    bool receipts = true;
    // e2e with RocketMQ: the consumer leg runs unless --no-consumer.
    bool consumer = true;
    std::string consumer_script;  // scripts/consumer.sh (builds and runs outpost-consumer)
    // vm, vm-run: the gateway VM's kernel and initramfs (scripts/gateway-vm/build).
    std::string vm_dir = "build-gateway-vm";
    int states_per_recording = 100;  // crash states cut from one recorded run
    int states_per_boot = 8;         // crash states checked by one VM boot
    double alarm_rate = 0;           // vm-run: alarms per second (0: as fast as answered)
    std::string sent_retention = "0";  // vm-run: outpostd's SENT retention (s, or "default")
    int mark_delay_ms = -1;  // vm-run: outpostd's publisher.mark_delay_ms (-1: its default)
    int commit_wait_us = -1;  // vm-run: outpostd's database.commit_wait_us (-1: its default)
    // vm, vm-run: the data disk's ext4 mount options; empty: noatime,lazytime
    // as docs/operations/gateway.md recommends (proof/vm/recording.h)
    std::string mount_options;
    std::string naive;  // vm-run: the flash anchor instead of outpostd ("rollback" or "wal")

    // Set only in a child started by the campaign (hidden options).
    std::string child;  // "powercut", "kill" or "e2e"
    uint64_t child_index = 0;
    std::string child_db;
    std::string child_images;           // powercut: where the images go
    std::string child_retries;          // file of calls to retry first
    std::string child_broker;           // e2e: the MQTT broker URI the publisher uses
    bool child_receipts = false;        // e2e: the publisher runs with receipts on
    bool child_await_receipts = false;  // e2e: drained means every row confirmed too
    int evidence_fd = -1;
};

// Parses argv. Returns nullopt with *message set to the error, or to the
// help text (and *help = true) for --help.
std::optional<CampaignOptions> parse_options(int argc, char** argv, std::string* message,
                                             bool* help);

// The same options as a command line that repeats `index` alone.
std::string rerun_command(const CampaignOptions& options, uint64_t index);

// The KEY=VALUE lines of an env file written by `scripts/rocketmq.sh start
// DIR` (NAMESRV_ADDR, BROKER_ADDR, ROCKETMQ_DIR, ROCKETMQ_SCRIPT, ...); empty
// when it cannot be read.
std::map<std::string, std::string> read_env_file(const std::string& path);

// A 64-bit mix (splitmix64) for deriving run parameters from the seed.
uint64_t mix(uint64_t value);

}  // namespace outpost::torture

#endif  // OUTPOST_PROOF_OPTIONS_H
