#include "proof/vm/state_check.h"

#include <fstream>
#include <map>

#include "proof/child.h"
#include "proof/vm/disk_layout.h"
#include "proof/vm/host_tools.h"

namespace outpost::torture::vm {
namespace {

// What the guest said about one state, between "vm begin" and "vm end".
struct GuestReport {
    std::vector<std::string> evidence;  // its own calls' S, A, F lines
    std::vector<std::string> lines;     // vm lines, without "vm "
    bool ended = false;
};

std::map<std::string, GuestReport> read_reports(const std::string& channel_path) {
    std::map<std::string, GuestReport> reports;
    std::ifstream in(channel_path);
    GuestReport* current = nullptr;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("vm begin ", 0) == 0) {
            current = &reports[line.substr(9)];
        } else if (line.rfind("vm end ", 0) == 0) {
            if (current != nullptr) current->ended = true;
            current = nullptr;
        } else if (current != nullptr && line.rfind("vm ", 0) == 0) {
            current->lines.push_back(line.substr(3));
        } else if (current != nullptr) {
            current->evidence.push_back(line);
        }
    }
    return reports;
}

std::string serial_of(const CrashState& state) {
    return "s" + std::to_string(state.id);
}

// The guest's account of one state: its problems, and the evidence of its calls.
void judge_guest(const GuestReport& guest, StateResult& result, faults::EvidenceLog& evidence) {
    if (!guest.ended) result.problems.push_back("the guest never finished checking this state");
    for (const std::string& line : guest.lines) {
        const bool failed =
            line.rfind("mount failed", 0) == 0 || line.rfind("open failed", 0) == 0 ||
            line.rfind("umount failed", 0) == 0 || line.find("calls failed") != std::string::npos ||
            line.find("EXT4-fs error") != std::string::npos || line.rfind("error", 0) == 0;
        if (failed) result.problems.push_back("guest: " + line);
        if (line.find("recovery complete") != std::string::npos) result.journal_recovered = true;
    }
    for (const std::string& line : guest.evidence) {
        std::string error;
        if (!evidence.apply(line, &error)) result.problems.push_back("guest evidence: " + error);
        if (line.rfind("S ", 0) == 0 && line.find("-restart ") == std::string::npos) {
            ++result.retried;
        }
    }
}

}  // namespace

std::vector<StateResult> check_states(const VmImages& images, const Recording& recording,
                                      Replayer& replayer, const std::vector<CrashState>& states,
                                      const std::string& dir, const std::string& gateway_id) {
    std::vector<StateResult> results(states.size());
    std::vector<faults::EvidenceLog> evidence(states.size());
    VmBoot boot;
    boot.images = images;
    boot.kernel_args = {"outpost.role=check", "outpost.gateway=" + gateway_id};
    boot.channel_path = dir + "/channel.txt";
    boot.console_path = dir + "/console.txt";
    boot.limit = std::chrono::seconds(180 + 60 * states.size());
    make_dir(dir);
    for (size_t i = 0; i < states.size(); ++i) {
        StateResult& result = results[i];
        result.state = states[i];
        result.image = dir + "/state-" + std::to_string(states[i].id) + ".img";
        evidence[i] = evidence_at(recording, states[i].cut);
        DiskImage image = replayer.state(states[i]);
        // The calls whose outcome the state leaves open, for the guest to retry.
        uint64_t number = 0;
        for (const std::string& token : evidence[i].open_calls()) {
            const std::string& key = evidence[i].calls().at(token).key;
            image.write(kFsBytes + number * kRecordBytes,
                        encode_record(number, "R " + token + " " + (key.empty() ? "-" : key)));
            ++number;
        }
        std::string error;
        if (!image.save(result.image, &error)) {
            result.problems.push_back(error);
        } else if (!superblock_verifies(result.image, result.image + ".dumpe2fs.log")) {
            // The gateway's boot repairs it before the mount (host_tools.h);
            // the store is then checked on the repaired disk like any other.
            result.fsck_repaired = true;
            const std::string repair = fsck_repair(result.image, result.image + ".repair.log");
            if (!repair.empty()) result.problems.push_back(repair);
        }
        boot.disks.push_back({result.image, serial_of(states[i]), ""});
    }
    const VmExit exit = vm::boot(boot);
    const std::map<std::string, GuestReport> reports = read_reports(boot.channel_path);
    for (size_t i = 0; i < states.size(); ++i) {
        StateResult& result = results[i];
        if (!exit.powered_off) result.problems.push_back(exit.error);
        auto found = reports.find(serial_of(states[i]));
        judge_guest(found != reports.end() ? found->second : GuestReport{}, result, evidence[i]);
        const std::string fsck = fsck_problems(result.image, result.image + ".fsck.log");
        if (!fsck.empty()) result.problems.push_back(fsck);
        const std::string copy = result.image + ".store";
        std::string error;
        if (!make_dir(copy) || !copy_store_out(result.image, copy, &error)) {
            result.problems.push_back(error.empty() ? "cannot create " + copy : error);
        }
        result.report =
            faults::check_database(copy + "/" + kStoreDir + "/" + kStoreName, evidence[i]);
    }
    return results;
}

}  // namespace outpost::torture::vm
