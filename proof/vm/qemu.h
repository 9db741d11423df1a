// Boots the gateway VM (scripts/gateway-vm/build made its kernel and
// initramfs) under QEMU's TCG: the `virt` machine with two Cortex-A72
// cores and 1 GiB, the role on the kernel command line (scripts/gateway-vm/init),
// a virtio-serial port "outpost" whose output goes to a file, and virtio
// disks - the recorded data disk behind `blklogwrites`, or crash states.
//
// Host flushes are switched off for every image (cache.no-flush): what a
// power cut keeps is decided by replaying the block log, not by the host's
// disk, and a campaign makes thousands of guest flushes.
#ifndef OUTPOST_PROOF_VM_QEMU_H
#define OUTPOST_PROOF_VM_QEMU_H

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace outpost::torture::vm {

struct VmImages {
    std::string kernel;
    std::string initramfs;
    // vmlinuz and initramfs.gz in `dir`; nullopt with *error set if missing.
    static std::optional<VmImages> in(const std::string& dir, std::string* error);
};

struct VmDisk {
    std::string image;
    std::string serial;    // the guest reads it from /sys/block/vdX/serial
    std::string log_path;  // not empty: record every write and flush here
};

struct VmBoot {
    VmImages images;
    std::vector<std::string> kernel_args;  // "outpost.role=check", ...
    std::vector<VmDisk> disks;
    bool network = false;      // user networking: the host is 10.0.2.2
    std::string channel_path;  // the "outpost" port's output
    std::string console_path;  // the serial console (kernel, outpostd's stderr)
    std::chrono::seconds limit{600};
};

struct VmExit {
    bool powered_off = false;  // QEMU exited 0 after the guest's poweroff
    double seconds = 0;
    std::string error;  // otherwise: why
};

// Runs the VM to its end (the guest powers off) or kills it after the limit.
VmExit boot(const VmBoot& boot);

}  // namespace outpost::torture::vm

#endif  // OUTPOST_PROOF_VM_QEMU_H
