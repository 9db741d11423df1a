// The host programs the VM campaign runs to completion: mkfs.ext4 for a
// fresh data disk, e2fsck to repair a superblock a cut tore and to judge a
// file system the guest recovered, and debugfs to copy the store's files
// out of a disk image without mounting it.
#ifndef OUTPOST_PROOF_VM_HOST_TOOLS_H
#define OUTPOST_PROOF_VM_HOST_TOOLS_H

#include <chrono>
#include <string>
#include <vector>

namespace outpost::torture::vm {

struct ToolRun {
    int exit_code = -1;  // -1: did not start, was killed, or ran past its limit
    std::string output;  // stdout and stderr
    std::string error;   // why exit_code is -1
};

// Runs argv[0] (looked up on $PATH and the sbin directories) with stdout and
// stderr in `log_path`; killed after `limit`.
ToolRun run_tool(const std::vector<std::string>& argv, const std::string& log_path,
                 std::chrono::seconds limit);

// A fresh data disk at `path` (disk_layout.h): kDiskBytes, ext4 over the first
// kFsBytes with 4 KiB blocks, inode tables and journal initialised now (so the
// guest's kernel does not zero them during the workload). False, *error set.
bool make_data_disk(const std::string& path, std::string* error);

// True when the primary superblock of `image`'s file system verifies
// (dumpe2fs -h reads it). A power cut inside ext4's write of block 0 (at
// mount, at unmount, or a checkpoint of a journalled superblock) can tear
// it across sectors; the kernel then refuses to mount ("Bad message") and
// so does e2fsck -p.
bool superblock_verifies(const std::string& image, const std::string& log_path);

// What a gateway booted with systemd's fsck.repair=yes does before it mounts
// such a disk: e2fsck -fy, which opens the file system from a backup
// superblock and replays the journal. Empty when repaired, else its report.
std::string fsck_repair(const std::string& image, const std::string& log_path);

// e2fsck -fn on the file system of `image`: empty when clean, else its report.
std::string fsck_problems(const std::string& image, const std::string& log_path);

// Copies the store's directory out of `image` into `into`/outpost (debugfs
// rdump; the file system must be clean). False with *error set.
bool copy_store_out(const std::string& image, const std::string& into, std::string* error);

}  // namespace outpost::torture::vm

#endif  // OUTPOST_PROOF_VM_HOST_TOOLS_H
