// The host programs the VM campaign runs to completion: mkfs.ext4 for a
// fresh data disk, e2fsck to judge a file system the guest recovered, and
// debugfs to copy the store's files out of a disk image without mounting it.
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

// e2fsck -fn on the file system of `image`: empty when clean, else its report.
std::string fsck_problems(const std::string& image, const std::string& log_path);

// Copies the store's directory out of `image` into `into`/outpost (debugfs
// rdump; the file system must be clean). False with *error set.
bool copy_store_out(const std::string& image, const std::string& into, std::string* error);

}  // namespace outpost::torture::vm

#endif  // OUTPOST_PROOF_VM_HOST_TOOLS_H
