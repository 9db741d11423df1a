#include "proof/options.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "common/child_supervisor.h"

namespace outpost::torture {
namespace {

constexpr const char* kHelp =
    R"(outpost-torture: tries to break Outpost's durability promises.

Usage: outpost-torture --mode powercut|kill|e2e|vm|vm-run [options]

  --mode powercut   each run records alarms over the power-cut simulator VFS in
                    a child process, cuts the power at a sync, a write or a
                    checkpoint write (drop, keep or tear what was not synced),
                    then recovers the images with SQLite's real VFS and checks
                    them against what the child was told.
  --mode kill       each run is a child on one shared database with
                    OUTPOST_FAULT=<point>:<n> set, cycling over every store
                    fault point; the child SIGKILLs itself there, the parent
                    checks the database and starts the next child on it.
  --mode e2e        the whole gateway chain: the parent starts its own
                    mosquitto and an independent subscriber (mosquitto_sub);
                    each run is a gateway child (store + publisher) recording
                    alarms with OUTPOST_FAULT=<point>:<n> set, cycling over the
                    store and publisher fault points; killed children are
                    restarted until the outbox is drained. Then every
                    acknowledged alarm must be SENT and seen at the
                    subscriber, and every event seen must be in the database.
                    With RocketMQ (--rocketmq, or OUTPOST_ROCKETMQ_ENV set),
                    outpost-bridge runs too, killed at the bridge fault points
                    and restarted, and RocketMQ must hold every acknowledged
                    alarm and nothing else (read with mqadmin printMsg). The
                    report names each RocketMQ broker's flushDiskType and
                    brokerRole and whether its SEND_OK is durable
                    ("rocketmq broker ..." lines).
  --mode vm         power cuts replayed at the flushes of an emulated arm64
                    gateway's disk: each recording boots the gateway VM
                    (QEMU TCG; scripts/gateway-vm/build) on a fresh ext4 data
                    disk recorded with QEMU's blklogwrites, runs outpostd and
                    alarms through its socket against this program's
                    mosquitto; crash states are replayed from the log (up to
                    each flush, and with writes after it kept, dropped or
                    torn), each is mounted by the real kernel in a check VM
                    where the store opens, retries and records, and is then
                    checked here against what the guest was told before the
                    cut (tests/faults/RASPBERRY-PI.md).
  --mode vm-run     one recorded run of the gateway VM; prints its figures
                    (alarms/s, block-layer bytes per alarm) as JSON
  --vm DIR          vm: vmlinuz and initramfs.gz (default build-gateway-vm)
  --states-per-recording N  vm: crash states cut from one recording (100)
  --states-per-boot N       vm: crash states one check VM mounts (8)
  --rocketmq FILE   e2e: the env file of `scripts/rocketmq.sh start DIR`
  --no-rocketmq     e2e: no bridge leg, even with OUTPOST_ROCKETMQ_ENV set
  --bridge PATH     e2e: outpost-bridge (default: beside this program, or
                    ../bridge/outpost-bridge in a build tree)
  --rocketmq-script PATH  e2e: scripts/rocketmq.sh of an Outpost checkout, to
                    read RocketMQ with mqadmin (default: the ROCKETMQ_SCRIPT
                    line of the env file, written by the rocketmq.sh that
                    started RocketMQ)
                    With RocketMQ, outpost-consumer (the Java reference
                    consumer) reads the bridge's topic into a SQLite database,
                    killed at the consumer fault points (before its COMMIT;
                    after it, before the offset acknowledgement) and
                    restarted; every acknowledged alarm must end with exactly
                    one business row, and no other row may exist.
                    With RocketMQ the gateway runs with receipts on (a short
                    receipt timeout): the last run ends only when every row
                    is confirmed, and every acknowledged alarm must be.
  --no-receipts     e2e: the gateway runs without receipts (SENT is final)
  --broker-faults N e2e with RocketMQ: also N broker faults, one per run,
                    cycling from the seed: the bridge replaced by one that
                    never subscribed, mosquitto SIGKILLed without
                    persistence and restarted, the bridge down past its
                    session expiry (1 s in this mode). The MQTT subscriber
                    then only proves that nothing phantom appeared; without
                    RocketMQ the campaign exits 77 (skipped)
  --no-consumer     e2e: no consumer leg
  --consumer-script PATH  e2e: scripts/consumer.sh of an Outpost checkout
                    (default: the one beside the RocketMQ script)
  --cuts N          runs that end in a power cut, or SIGKILLs that fired (100)
  --seed S          derives every run's parameters (1)
  --workers K       threads recording at once (4; 1 makes a run repeatable;
                    vm: socket connections)
  --alarms-per-run M  record calls per run over all workers (120; vm: per
                    recording)
  --alarm-rate R    vm-run: alarms per second over all connections, evenly
                    spaced (0, the default: as fast as outpostd answers)
  --sent-retention S  vm-run: outpostd's SENT retention in seconds, or
                    "default" for outpostd's own (0)
  --mark-delay-ms MS  vm-run: outpostd's publisher.mark_delay_ms (default:
                    outpostd's own)
  --commit-wait-us US  vm-run: outpostd's database.commit_wait_us (default:
                    outpostd's own)
  --mount-options O   vm, vm-run: ext4 mount options of the gateway's data
                    disk (default noatime,lazytime, what
                    docs/operations/gateway.md tells operators to use)
  --naive MODE      vm-run: instead of outpostd, the flash anchor: a plain
                    SQLite program writing the same number of alarm rows,
                    one durable transaction each, with a rollback journal
                    (MODE rollback) or WAL with synchronous=FULL (MODE wal)
  --dir DIR         scratch space (default $TMPDIR or /tmp)
  --keep-failures   keep the files of failed runs
  --only I          powercut mode: run index I alone (as printed on failure)
  --verbose         one line per run: its parameters, figures and check
  --help            this text

Output: one line per failure with its parameters and a command that repeats
it, then a summary, and last, in both modes:
  cuts=N lost=L phantom=P integrity_failures=I duplicates=D
(in kill and e2e mode N counts the SIGKILLs that fired; in e2e mode L and P
include the subscriber's view, D its repeated arrivals). Exit status 0 only when
L, P and I are all zero.
)";

// outpost-bridge installed beside this program, or in its build tree.
std::string default_bridge_binary() {
    std::string dir = own_program();
    if (dir.empty()) return "outpost-bridge";
    dir = dir.substr(0, dir.rfind('/'));
    const std::string beside = dir + "/outpost-bridge";
    return ::access(beside.c_str(), X_OK) == 0 ? beside : dir + "/../bridge/outpost-bridge";
}

bool parse_number(const char* text, uint64_t* out) {
    if (text == nullptr || *text == '\0') return false;
    char* end = nullptr;
    *out = std::strtoull(text, &end, 0);
    return *end == '\0';
}

}  // namespace

std::map<std::string, std::string> read_env_file(const std::string& path) {
    std::map<std::string, std::string> values;
    std::ifstream file(path);
    for (std::string key, value; std::getline(file, key, '=') && std::getline(file, value);) {
        values[key] = value;
    }
    return values;
}

uint64_t mix(uint64_t value) {
    value += 0x9E3779B97F4A7C15ull;
    value = (value ^ (value >> 30)) * 0xBF58476D1CE4E5B9ull;
    value = (value ^ (value >> 27)) * 0x94D049BB133111EBull;
    return value ^ (value >> 31);
}

std::optional<CampaignOptions> parse_options(int argc, char** argv, std::string* message,
                                             bool* help) {
    CampaignOptions options;
    *help = false;
    bool mode_given = false;
    bool no_rocketmq = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const char* value = i + 1 < argc ? argv[i + 1] : nullptr;
        uint64_t number = 0;
        auto need_number = [&](uint64_t minimum) {
            if (!parse_number(value, &number) || number < minimum) {
                *message = arg + " needs a number >= " + std::to_string(minimum);
                return false;
            }
            ++i;
            return true;
        };
        auto need_text = [&](std::string* into) {
            if (value == nullptr) {
                *message = arg + " needs a value";
                return false;
            }
            *into = value;
            ++i;
            return true;
        };
        if (arg == "--help" || arg == "-h") {
            *help = true;
            *message = kHelp;
            return std::nullopt;
        } else if (arg == "--mode") {
            std::string mode;
            if (!need_text(&mode)) return std::nullopt;
            if (mode == "powercut") {
                options.mode = Mode::kPowercut;
            } else if (mode == "kill") {
                options.mode = Mode::kKill;
            } else if (mode == "e2e") {
                options.mode = Mode::kE2e;
            } else if (mode == "vm") {
                options.mode = Mode::kVm;
            } else if (mode == "vm-run") {
                options.mode = Mode::kVmRun;
            } else {
                *message = "--mode must be powercut, kill, e2e, vm or vm-run";
                return std::nullopt;
            }
            mode_given = true;
        } else if (arg == "--cuts") {
            if (!need_number(1)) return std::nullopt;
            options.cuts = number;
        } else if (arg == "--seed") {
            if (!need_number(0)) return std::nullopt;
            options.seed = number;
        } else if (arg == "--workers") {
            if (!need_number(1) || number > 64) {
                *message = "--workers needs a number from 1 to 64";
                return std::nullopt;
            }
            options.workers = static_cast<int>(number);
        } else if (arg == "--alarms-per-run") {
            if (!need_number(1) || number > 1000000) {
                *message = "--alarms-per-run needs a number from 1 to 1000000";
                return std::nullopt;
            }
            options.alarms_per_run = static_cast<int>(number);
        } else if (arg == "--alarm-rate") {
            std::string text;
            if (!need_text(&text)) return std::nullopt;
            char* end = nullptr;
            options.alarm_rate = std::strtod(text.c_str(), &end);
            if (*end != '\0' || !(options.alarm_rate >= 0) || options.alarm_rate > 100000) {
                *message = "--alarm-rate needs a number of alarms per second from 0 to 100000";
                return std::nullopt;
            }
        } else if (arg == "--sent-retention") {
            if (!need_text(&options.sent_retention)) return std::nullopt;
            uint64_t seconds = 0;
            if (options.sent_retention != "default" &&
                !parse_number(options.sent_retention.c_str(), &seconds)) {
                *message = "--sent-retention needs a number of seconds or \"default\"";
                return std::nullopt;
            }
        } else if (arg == "--mark-delay-ms") {
            if (!need_number(0) || number > 60000) {
                *message = "--mark-delay-ms needs a number from 0 to 60000";
                return std::nullopt;
            }
            options.mark_delay_ms = static_cast<int>(number);
        } else if (arg == "--commit-wait-us") {
            if (!need_number(0) || number > 100000) {
                *message = "--commit-wait-us needs a number from 0 to 100000";
                return std::nullopt;
            }
            options.commit_wait_us = static_cast<int>(number);
        } else if (arg == "--mount-options") {
            if (!need_text(&options.mount_options)) return std::nullopt;
            // One word of the kernel command line, read by the VM's /init.
            const bool plain = !options.mount_options.empty() &&
                               options.mount_options.find_first_not_of(
                                   "abcdefghijklmnopqrstuvwxyz0123456789,=_") == std::string::npos;
            if (!plain) {
                *message = "--mount-options needs ext4 options like noatime,lazytime "
                           "(lower-case letters, digits, ',', '=' and '_')";
                return std::nullopt;
            }
        } else if (arg == "--naive") {
            if (!need_text(&options.naive)) return std::nullopt;
            if (options.naive != "rollback" && options.naive != "wal") {
                *message = "--naive must be rollback or wal";
                return std::nullopt;
            }
        } else if (arg == "--dir") {
            if (!need_text(&options.dir)) return std::nullopt;
        } else if (arg == "--rocketmq") {
            if (!need_text(&options.rocketmq_env)) return std::nullopt;
        } else if (arg == "--no-rocketmq") {
            no_rocketmq = true;
        } else if (arg == "--bridge") {
            if (!need_text(&options.bridge_binary)) return std::nullopt;
        } else if (arg == "--rocketmq-script") {
            if (!need_text(&options.rocketmq_script)) return std::nullopt;
        } else if (arg == "--no-receipts") {
            options.receipts = false;
        } else if (arg == "--broker-faults") {
            if (!need_number(0)) return std::nullopt;
            options.broker_faults = number;
        } else if (arg == "--child-receipts") {
            options.child_receipts = true;
        } else if (arg == "--child-await-receipts") {
            options.child_await_receipts = true;
        } else if (arg == "--no-consumer") {
            options.consumer = false;
        } else if (arg == "--consumer-script") {
            if (!need_text(&options.consumer_script)) return std::nullopt;
        } else if (arg == "--vm") {
            if (!need_text(&options.vm_dir)) return std::nullopt;
        } else if (arg == "--states-per-recording" || arg == "--states-per-boot") {
            if (!need_number(1) || number > 10000) {
                *message = arg + " needs a number from 1 to 10000";
                return std::nullopt;
            }
            (arg == "--states-per-boot" ? options.states_per_boot : options.states_per_recording) =
                static_cast<int>(number);
        } else if (arg == "--verbose") {
            options.verbose = true;
        } else if (arg == "--keep-failures") {
            options.keep_failures = true;
        } else if (arg == "--only") {
            if (!need_number(0)) return std::nullopt;
            options.only = number;
        } else if (arg == "--child") {
            if (!need_text(&options.child)) return std::nullopt;
        } else if (arg == "--child-index") {
            if (!need_number(0)) return std::nullopt;
            options.child_index = number;
        } else if (arg == "--child-db") {
            if (!need_text(&options.child_db)) return std::nullopt;
        } else if (arg == "--child-images") {
            if (!need_text(&options.child_images)) return std::nullopt;
        } else if (arg == "--child-retries") {
            if (!need_text(&options.child_retries)) return std::nullopt;
        } else if (arg == "--child-broker") {
            if (!need_text(&options.child_broker)) return std::nullopt;
        } else if (arg == "--evidence-fd") {
            if (!need_number(0)) return std::nullopt;
            options.evidence_fd = static_cast<int>(number);
        } else {
            *message = "unknown option '" + arg + "' (see --help)";
            return std::nullopt;
        }
    }
    if (!mode_given && options.child.empty()) {
        *message = "--mode powercut|kill|e2e|vm|vm-run is required (see --help)";
        return std::nullopt;
    }
    const char* env_file = std::getenv("OUTPOST_ROCKETMQ_ENV");
    if (options.rocketmq_env.empty() && env_file != nullptr) options.rocketmq_env = env_file;
    if (no_rocketmq || options.mode != Mode::kE2e || !options.child.empty()) {
        options.rocketmq_env.clear();
    }
    if (!options.rocketmq_env.empty() && ::access(options.rocketmq_env.c_str(), R_OK) != 0) {
        *message = "cannot read the RocketMQ env file " + options.rocketmq_env;
        return std::nullopt;
    }
    if (!options.rocketmq_env.empty()) {
        if (options.bridge_binary.empty()) options.bridge_binary = default_bridge_binary();
        if (options.rocketmq_script.empty()) {
            options.rocketmq_script = read_env_file(options.rocketmq_env)["ROCKETMQ_SCRIPT"];
        }
        if (options.rocketmq_script.empty()) {
            *message = "the bridge leg reads RocketMQ with scripts/rocketmq.sh of an Outpost "
                       "checkout, and " +
                       options.rocketmq_env +
                       " names none (no ROCKETMQ_SCRIPT line): pass --rocketmq-script PATH, "
                       "or --no-rocketmq";
            return std::nullopt;
        }
        for (const std::string* path : {&options.bridge_binary, &options.rocketmq_script}) {
            if (::access(path->c_str(), X_OK) != 0) {
                *message = "the bridge leg needs " + *path +
                           " (see --bridge, --rocketmq-script, --no-rocketmq)";
                return std::nullopt;
            }
        }
        if (options.consumer_script.empty()) {
            const std::string& rocketmq = options.rocketmq_script;
            const size_t slash = rocketmq.rfind('/');
            options.consumer_script =
                (slash == std::string::npos ? std::string() : rocketmq.substr(0, slash + 1)) +
                "consumer.sh";
        }
        if (options.consumer && ::access(options.consumer_script.c_str(), X_OK) != 0) {
            *message = "the consumer leg needs " + options.consumer_script +
                       " (see --consumer-script, --no-consumer)";
            return std::nullopt;
        }
    }
    return options;
}

std::string rerun_command(const CampaignOptions& options, uint64_t index) {
    return std::string("outpost-torture --mode ") +
           (options.mode == Mode::kKill ? "kill" : "powercut") + " --seed " +
           std::to_string(options.seed) + " --only " + std::to_string(index) + " --workers " +
           std::to_string(options.workers) + " --alarms-per-run " +
           std::to_string(options.alarms_per_run) + " --keep-failures";
}

}  // namespace outpost::torture
