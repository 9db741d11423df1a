#include "proof/vm/guest/check.h"

#include <sys/klog.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <vector>

#include "proof/evidence.h"
#include "proof/recorded_call.h"
#include "outpost/store.h"
#include "proof/vm/disk_layout.h"
#include "proof/vm/guest/evidence_disk.h"
#include "proof/workload.h"

namespace outpost::torture::vm::guest {
namespace {

constexpr int kSyslogReadClear = 4;  // SYSLOG_ACTION_READ_CLEAR

// Forwards the kernel's file system messages since the last call (journal
// recovery, errors) to the host, and clears the buffer.
void forward_kernel_messages(const std::string& serial, const Channel& channel) {
    std::vector<char> buffer(1 << 16);
    const int got = ::klogctl(kSyslogReadClear, buffer.data(), static_cast<int>(buffer.size()));
    if (got <= 0) return;
    std::istringstream lines(std::string(buffer.data(), static_cast<size_t>(got)));
    for (std::string line; std::getline(lines, line);) {
        if (line.find("EXT4-fs") != std::string::npos || line.find("JBD2") != std::string::npos) {
            channel.line("vm kmsg " + serial + " " + line);
        }
    }
}

StoreOptions check_store_options(const std::string& gateway_id) {
    StoreOptions options;
    options.gateway_id = gateway_id;
    options.check_on_open = true;  // the store's own integrity check, on the ARM side
    options.quota_bytes = 16ll * 1024 * 1024;
    // Nothing is purged here: the host looks every SENT row up afterwards.
    options.sent_retention = std::chrono::hours(24 * 365);
    return options;
}

// Retries, then one new alarm; false if any call failed.
bool exercise_store(Store& store, const std::vector<std::string>& records,
                    const CheckOptions& options, const Channel& channel) {
    const faults::EvidenceWriter evidence(channel.fd());
    bool ok = true;
    for (const std::string& record : records) {
        std::istringstream in(record);
        std::string tag, token, key;
        if (!(in >> tag >> token >> key) || tag != "R") continue;
        if (key == "-") key.clear();
        ok = faults::record_with_evidence(store, alarm_for(token, key), evidence).is_ok() && ok;
    }
    return faults::record_with_evidence(store, alarm_for(options.serial + "-restart", ""), evidence)
               .is_ok() &&
           ok;
}

}  // namespace

int run_check(const CheckOptions& options, const Channel& channel) {
    const std::string serial = options.serial;
    channel.line("vm begin " + serial);
    std::vector<std::string> records;
    std::string error;
    if (!read_records(options.device, &records, &error)) channel.line("vm error " + error);
    forward_kernel_messages(serial, channel);
    bool ok = false;
    if (::mount(options.device.c_str(), kGuestMount, "ext4", MS_NOATIME, nullptr) != 0) {
        channel.line("vm mount failed " + std::string(std::strerror(errno)));
    } else {
        channel.line("vm mount ok");
        forward_kernel_messages(serial, channel);
        // The gateway's boot makes the store's directory (systemd's
        // StateDirectory=); a cut before its entry was durable loses it.
        const std::string dir = std::string(kGuestMount) + "/" + kStoreDir;
        if (::mkdir(dir.c_str(), 0755) == 0) channel.line("vm made " + dir);
        const std::string path = dir + "/" + kStoreName;
        auto store = Store::open(path, check_store_options(options.gateway_id));
        if (!store) {
            channel.line("vm open failed " + store.status().to_string());
        } else {
            const bool calls_ok = exercise_store(**store, records, options, channel);
            const Status closed = (*store)->close();
            channel.line(std::string("vm open ok calls ") + (calls_ok ? "ok" : "failed") +
                         " close " + (closed ? "ok" : closed.to_string()));
            ok = calls_ok && closed.is_ok();
        }
        if (::umount(kGuestMount) != 0) {
            channel.line("vm umount failed " + std::string(std::strerror(errno)));
            ok = false;
        }
        forward_kernel_messages(serial, channel);
    }
    channel.line("vm end " + serial);
    return ok ? 0 : 1;
}

}  // namespace outpost::torture::vm::guest
