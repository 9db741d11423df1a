#include "proof/vm/host_tools.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "proof/child.h"
#include "proof/observer.h"
#include "proof/vm/disk_layout.h"

namespace outpost::torture::vm {

ToolRun run_tool(const std::vector<std::string>& argv, const std::string& log_path,
                 std::chrono::seconds limit) {
    ToolRun run;
    std::vector<std::string> args = argv;
    args[0] = find_program(argv[0]);
    if (args[0].empty()) {
        run.error = argv[0] + " not found (scripts/setup --vm installs it)";
        return run;
    }
    ::unlink(log_path.c_str());
    auto process = LoggedProcess::spawn(args, log_path, &run.error);
    if (!process) return run;
    if (!poll_until([&] { return !process->running(); }, limit)) {
        run.error = argv[0] + " still running after " + std::to_string(limit.count()) + " s";
    } else if (WIFEXITED(process->wait_status())) {
        run.exit_code = WEXITSTATUS(process->wait_status());
    } else {
        run.error = argv[0] + " was killed by a signal";
    }
    run.output = process->log();
    return run;
}

bool make_data_disk(const std::string& path, std::string* error) {
    { std::ofstream create(path, std::ios::binary | std::ios::trunc); }
    if (::truncate(path.c_str(), static_cast<off_t>(kDiskBytes)) != 0) {
        *error = "cannot size " + path + ": " + std::strerror(errno);
        return false;
    }
    const ToolRun run = run_tool(
        {"mkfs.ext4", "-q", "-F", "-b", "4096", "-E", "lazy_itable_init=0,lazy_journal_init=0",
         "-L", "outpost-data", path, std::to_string(kFsBytes / 4096)},
        path + ".mkfs.log", std::chrono::seconds(60));
    if (run.exit_code != 0) {
        *error = "mkfs.ext4 failed: " + run.error + run.output;
        return false;
    }
    return true;
}

namespace {

std::string one_line(const ToolRun& run, const std::string& what) {
    std::string report = run.error + run.output;
    for (char& c : report) {
        if (c == '\n') c = ' ';
    }
    return what + " exit " + std::to_string(run.exit_code) + ": " + report;
}

}  // namespace

bool superblock_verifies(const std::string& image, const std::string& log_path) {
    return run_tool({"dumpe2fs", "-h", image}, log_path, std::chrono::seconds(60)).exit_code == 0;
}

std::string fsck_repair(const std::string& image, const std::string& log_path) {
    const ToolRun run = run_tool({"e2fsck", "-f", "-y", image}, log_path, std::chrono::seconds(120));
    // 0: clean, 1: errors corrected, 2: corrected, reboot (moot for an image).
    if (run.exit_code >= 0 && run.exit_code <= 2) return "";
    return one_line(run, "e2fsck -fy");
}

std::string fsck_problems(const std::string& image, const std::string& log_path) {
    const ToolRun run = run_tool({"e2fsck", "-f", "-n", image}, log_path, std::chrono::seconds(60));
    if (run.exit_code == 0) return "";
    return one_line(run, "e2fsck -fn");
}

bool copy_store_out(const std::string& image, const std::string& into, std::string* error) {
    const std::string from = std::string("/") + kStoreDir;
    const ToolRun run = run_tool({"debugfs", "-R", "rdump " + from + " " + into, image},
                                 into + "/debugfs.log", std::chrono::seconds(60));
    if (run.exit_code != 0 || run.output.find("rdump:") != std::string::npos) {
        *error = "debugfs rdump " + from + " failed: " + run.error + run.output;
        return false;
    }
    return true;
}

}  // namespace outpost::torture::vm
