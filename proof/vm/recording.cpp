#include "proof/vm/recording.h"

#include <algorithm>
#include <initializer_list>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "proof/child.h"
#include "proof/vm/disk_image.h"
#include "proof/vm/disk_layout.h"
#include "proof/vm/host_tools.h"
#include "proof/vm/publish_stamps.h"

namespace outpost::torture::vm {
namespace {

// Far above what a few hundred alarms take under TCG on a loaded 2-core
// host (a minute or two); reaching it is reported as the failure it is.
constexpr std::chrono::seconds kVmLimit{1200};
constexpr std::chrono::seconds kArrivalLimit{60};

std::string word_after(const std::string& line, size_t index) {
    std::istringstream in(line);
    std::string word;
    for (size_t i = 0; i <= index && in >> word;) ++i;
    return word;
}

void read_channel(const std::string& path, Recording& recording) {
    std::ifstream in(path);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("vm ", 0) == 0) {
            recording.vm_lines.push_back(line.substr(3));
            continue;
        }
        std::string error;
        if (!recording.evidence.apply(line, &error)) {
            recording.problems.push_back("bad evidence line from the guest: " + error);
            continue;
        }
        recording.channel_evidence.push_back(line);
    }
    for (const std::string& line : recording.vm_lines) {
        std::istringstream words(line);
        std::string tag, name;
        Extent extent;
        if (words >> tag >> name >> extent.offset >> extent.length && tag == "extent") {
            recording.extents[name].push_back(extent);
        }
    }
}

// The evidence records in the log (writes beyond the file system), each
// with the index of the entry that wrote it.
void read_records(Recording& recording) {
    const BlockLog& log = *recording.log;
    const uint64_t sector = log.sector_size();
    for (size_t index = 0; index < log.entries().size(); ++index) {
        const LogEntry& entry = log.entries()[index];
        if (!entry.is_write()) continue;
        for (uint64_t s = 0; s < entry.sectors; ++s) {
            const uint64_t offset = (entry.sector + s) * sector;
            if (offset < kFsBytes || offset % kRecordBytes != 0) continue;
            const auto decoded = decode_record(log.data(entry) + s * sector);
            if (decoded) recording.records.emplace_back(index, decoded->line);
        }
    }
}

// Every `expected` line the guest must have reported, and every error it
// reported, as problems of the recording.
void check_guest_lines(Recording& recording, std::initializer_list<const char*> expected) {
    for (const char* line : expected) {
        if (std::find(recording.vm_lines.begin(), recording.vm_lines.end(), line) ==
            recording.vm_lines.end()) {
            recording.problems.push_back(std::string("the guest never reported '") + line + "'");
        }
    }
    for (const std::string& line : recording.vm_lines) {
        if (line.rfind("error", 0) == 0) recording.problems.push_back("guest: " + line);
    }
}

// Boots `boot` (its disk recorded to `log_path`) to its end, then reads what
// the guest said and the block log into `recording`. False with *error set
// when the log cannot be read.
bool boot_and_read(VmBoot& boot, const std::string& dir, const std::string& log_path,
                   Recording& recording, std::string* error) {
    boot.channel_path = dir + "/channel.txt";
    boot.console_path = dir + "/console.txt";
    boot.limit = kVmLimit;
    const VmExit exit = vm::boot(boot);
    recording.vm_seconds = exit.seconds;
    if (!exit.powered_off) recording.problems.push_back(exit.error);
    read_channel(boot.channel_path, recording);
    recording.log = BlockLog::open(log_path, error);
    return recording.log != nullptr;
}

// What the run itself must show, whatever the crash states say.
void check_run(Recording& recording, const PublishStamps& stamps, MqttObserver& observer) {
    std::vector<std::string>& problems = recording.problems;
    // The workload ended well, outpostd stopped cleanly on SIGTERM (its
    // drain), and the data disk unmounted.
    check_guest_lines(recording, {"workload ok", "outpostd exit 0", "umount exit 0"});
    // The log's records and the channel's starts and acknowledgements are
    // the same set.
    std::set<std::string> on_disk, on_channel, acknowledged;
    for (const auto& [index, line] : recording.records) on_disk.insert(line);
    for (const std::string& line : recording.channel_evidence) {
        if (line.rfind("S ", 0) == 0 || line.rfind("A ", 0) == 0) on_channel.insert(line);
        if (line.rfind("A ", 0) == 0) acknowledged.insert(word_after(line, 2));
    }
    if (on_disk != on_channel) {
        problems.push_back("the disk holds " + std::to_string(on_disk.size()) +
                           " evidence records, the channel " + std::to_string(on_channel.size()) +
                           " starts and acknowledgements");
    }
    // Replaying the whole log onto the base disk gives the disk QEMU wrote:
    // the log is complete and the replay is right.
    std::string error;
    auto base = DiskImage::load(recording.base_image, &error);
    auto written = DiskImage::load(recording.disk_image, &error);
    if (!base || !written) {
        problems.push_back(error);
    } else {
        Replayer replayer(*recording.log, *base, kDiskBytes);
        if (replayer.finish().bytes() != written->bytes()) {
            problems.push_back("replaying the whole log does not reproduce the disk");
        }
    }
    if (stamps.unreadable_streams() > 0) problems.push_back("an MQTT stream could not be read");
    // Every acknowledged alarm was published (through the relay) and reached
    // the subscriber; the subscriber saw nothing that was not acknowledged.
    const auto published = stamps.stamps();
    for (const std::string& id : acknowledged) {
        if (published.count(id) == 0) problems.push_back("never published: " + id);
    }
    auto arrived = [&] {
        const auto arrivals = observer.arrivals();
        for (const std::string& id : acknowledged) {
            if (arrivals.count(id) == 0) return false;
        }
        return true;
    };
    if (!poll_until(arrived, kArrivalLimit)) {
        problems.push_back("some acknowledged alarms never reached the subscriber");
    }
}

int port_of(const std::string& uri) {
    const size_t colon = uri.rfind(':');
    return colon == std::string::npos ? 0 : std::atoi(uri.c_str() + colon + 1);
}

}  // namespace

std::unique_ptr<Recording> record(const VmImages& images, const RecordingPlan& plan,
                                  MqttObserver& observer, const std::string& dir,
                                  std::string* error) {
    if (!make_dir(dir)) {
        *error = "cannot create " + dir;
        return nullptr;
    }
    auto recording = std::make_unique<Recording>();
    recording->dir = dir;
    recording->base_image = dir + "/base.img";
    recording->disk_image = dir + "/disk.img";
    const std::string log_path = dir + "/disk.log";
    if (!make_data_disk(recording->base_image, error)) return nullptr;
    auto base = DiskImage::load(recording->base_image, error);
    if (!base || !base->save(recording->disk_image, error)) return nullptr;
    std::ofstream(log_path, std::ios::trunc).close();
    auto stamps = PublishStamps::start(port_of(observer.broker_uri()), log_path, error);
    if (!stamps) return nullptr;

    VmBoot boot;
    boot.images = images;
    boot.kernel_args = {"outpost.role=workload",
                        "outpost.broker=tcp://10.0.2.2:" + std::to_string(stamps->port()),
                        "outpost.alarms=" + std::to_string(plan.alarms),
                        "outpost.connections=" + std::to_string(plan.connections),
                        "outpost.prefix=" + plan.prefix,
                        "outpost.gateway=" + plan.gateway_id,
                        "outpost.rate=" + std::to_string(plan.rate),
                        "outpost.retention=" + plan.retention,
                        std::string("outpost.tuning=") +
                            (plan.shipped_settings ? "shipped" : "campaign"),
                        "outpost.mount=" + plan.mount_options};
    if (plan.mark_delay_ms >= 0) {
        boot.kernel_args.push_back("outpost.mark_delay_ms=" + std::to_string(plan.mark_delay_ms));
    }
    if (plan.commit_wait_us >= 0) {
        boot.kernel_args.push_back("outpost.commit_wait_us=" + std::to_string(plan.commit_wait_us));
    }
    boot.disks = {{recording->disk_image, "data", log_path}};
    boot.network = true;
    if (!boot_and_read(boot, dir, log_path, *recording, error)) return nullptr;
    read_records(*recording);
    for (const auto& [event_id, length] : stamps->stamps()) {
        recording->publishes.emplace_back(recording->log->first_entry_at_or_after(length),
                                          event_id);
    }
    check_run(*recording, *stamps, observer);
    return recording;
}

std::unique_ptr<Recording> record_naive(const VmImages& images, const RecordingPlan& plan,
                                        const std::string& dir, std::string* error) {
    if (!make_dir(dir)) {
        *error = "cannot create " + dir;
        return nullptr;
    }
    auto recording = std::make_unique<Recording>();
    recording->dir = dir;
    recording->disk_image = dir + "/disk.img";
    const std::string log_path = dir + "/disk.log";
    if (!make_data_disk(recording->disk_image, error)) return nullptr;
    std::ofstream(log_path, std::ios::trunc).close();
    VmBoot boot;
    boot.images = images;
    boot.kernel_args = {"outpost.role=naive", "outpost.naive=" + plan.naive,
                        "outpost.alarms=" + std::to_string(plan.alarms),
                        "outpost.rate=" + std::to_string(plan.rate),
                        "outpost.mount=" + plan.mount_options};
    boot.disks = {{recording->disk_image, "data", log_path}};
    if (!boot_and_read(boot, dir, log_path, *recording, error)) return nullptr;
    check_guest_lines(*recording, {"naive ok", "umount exit 0"});
    return recording;
}

faults::EvidenceLog evidence_at(const Recording& recording, size_t cut) {
    faults::EvidenceLog log;
    std::string ignored;
    for (const auto& [index, line] : recording.records) {
        if (index < cut) log.apply(line, &ignored);
    }
    // A failure is true whenever it happened (the workload has none unless
    // outpostd refused a call); its call must have started before the cut.
    for (const std::string& line : recording.channel_evidence) {
        if (line.rfind("F ", 0) == 0) log.apply(line, &ignored);
    }
    for (const auto& [index, event_id] : recording.publishes) {
        if (index < cut) log.apply("M " + event_id, &ignored);
    }
    return log;
}

}  // namespace outpost::torture::vm
