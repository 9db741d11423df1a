// CPU time per process, for "what did each part cost per message" figures
// that hold on a loaded machine. Read from /proc/PID/stat (utime + stime:
// every thread the process ever ran, including threads that have ended;
// clock-tick resolution, 10 ms here) and the first line of /proc/stat (the
// whole machine: busy and total ticks over all cores). Header-only; for the
// benchmarks (bench/) and the fleet tooling (tests/support/fleet).
#ifndef OUTPOST_TESTS_PROCESS_CPU_H
#define OUTPOST_TESTS_PROCESS_CPU_H

#include <dirent.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace outpost::bench {

// The fields of /proc/PID/stat after "(comm)", split on spaces: field 3
// (state) is [0], so field N is [N - 3]. Empty when unreadable.
inline std::vector<std::string> proc_stat_fields(pid_t pid) {
    std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
    std::string text;
    std::getline(file, text);
    const std::size_t close = text.rfind(')');  // comm may hold spaces
    std::vector<std::string> fields;
    if (close == std::string::npos) return fields;
    std::istringstream rest(text.substr(close + 1));
    for (std::string field; rest >> field;) fields.push_back(field);
    return fields;
}

// User + system CPU seconds `pid` used so far; 0 when it cannot be read.
inline double process_cpu_seconds(pid_t pid) {
    const std::vector<std::string> fields = proc_stat_fields(pid);
    if (fields.size() < 13) return 0;
    const double ticks = std::strtod(fields[11].c_str(), nullptr) +  // utime, field 14
                         std::strtod(fields[12].c_str(), nullptr);   // stime, field 15
    return ticks / static_cast<double>(::sysconf(_SC_CLK_TCK));
}

// The live processes whose parent is `parent`.
inline std::vector<pid_t> child_processes(pid_t parent) {
    std::vector<pid_t> children;
    DIR* proc = ::opendir("/proc");
    if (proc == nullptr) return children;
    while (const dirent* entry = ::readdir(proc)) {
        const pid_t pid = static_cast<pid_t>(std::atoi(entry->d_name));
        if (pid <= 0) continue;
        const std::vector<std::string> fields = proc_stat_fields(pid);
        if (fields.size() > 1 && std::atoi(fields[1].c_str()) == parent) children.push_back(pid);
    }
    ::closedir(proc);
    return children;
}

// The name /proc/PID/comm gives `pid` ("mosquitto", "java"); "" when gone.
inline std::string process_name(pid_t pid) {
    std::ifstream file("/proc/" + std::to_string(pid) + "/comm");
    std::string name;
    std::getline(file, name);
    return name;
}

// Busy and total ticks of the whole machine so far (all cores).
struct MachineTicks {
    double busy = 0;
    double total = 0;
};

inline MachineTicks machine_ticks() {
    std::ifstream file("/proc/stat");
    std::string cpu;
    file >> cpu;  // "cpu": the sum over cores
    MachineTicks ticks;
    // user nice system idle iowait irq softirq steal: idle and iowait are not busy.
    for (int i = 0; i < 8; ++i) {
        double value = 0;
        if (!(file >> value)) break;
        ticks.total += value;
        if (i != 3 && i != 4) ticks.busy += value;
    }
    return ticks;
}

}  // namespace outpost::bench

#endif  // OUTPOST_TESTS_PROCESS_CPU_H
