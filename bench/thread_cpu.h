// CPU time per thread, for figures that hold on a loaded machine: what a
// phase of a benchmark cost in CPU, per thread name, not how long it took.
// Read from /proc/PID/task/TID/schedstat (its first field: nanoseconds on a
// CPU; its second: nanoseconds waited on a run queue) and .../comm. A thread
// that ends between two samples takes its time with it: sample before the
// threads of interest are joined. Header-only; bench programs only.
#ifndef OUTPOST_BENCH_THREAD_CPU_H
#define OUTPOST_BENCH_THREAD_CPU_H

#include <dirent.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <map>
#include <string>

namespace outpost::bench {

// One reading of every thread of one process.
struct ThreadCpu {
    struct Thread {
        std::string name;  // comm: "outpost-pub", "MQTTAsync_rcv", ...
        uint64_t cpu_ns = 0;
        uint64_t wait_ns = 0;  // waited for a CPU on a run queue
    };
    std::map<pid_t, Thread> threads;  // by tid
};

// Every thread of `pid` now; empty when /proc cannot be read.
inline ThreadCpu sample_thread_cpu(pid_t pid) {
    ThreadCpu sample;
    const std::string tasks = "/proc/" + std::to_string(pid) + "/task";
    DIR* dir = ::opendir(tasks.c_str());
    if (dir == nullptr) return sample;
    while (const dirent* entry = ::readdir(dir)) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        const std::string task = tasks + "/" + entry->d_name;
        ThreadCpu::Thread thread;
        std::ifstream(task + "/comm") >> thread.name;
        if (!(std::ifstream(task + "/schedstat") >> thread.cpu_ns >> thread.wait_ns)) {
            continue;  // it ended
        }
        sample.threads[static_cast<pid_t>(std::stoi(entry->d_name))] = thread;
    }
    ::closedir(dir);
    return sample;
}

// CPU nanoseconds spent between `before` and `after`, summed by the group
// `group_of(tid, name)` names. Threads born in between count from zero.
template <typename GroupOf>
std::map<std::string, uint64_t> cpu_between(const ThreadCpu& before, const ThreadCpu& after,
                                            GroupOf group_of) {
    std::map<std::string, uint64_t> by_group;
    for (const auto& [tid, thread] : after.threads) {
        auto earlier = before.threads.find(tid);
        const uint64_t start = earlier == before.threads.end() ? 0 : earlier->second.cpu_ns;
        by_group[group_of(tid, thread.name)] += thread.cpu_ns > start ? thread.cpu_ns - start : 0;
    }
    return by_group;
}

// The CPU of a whole process (every thread) between two samples.
inline uint64_t process_cpu_between(const ThreadCpu& before, const ThreadCpu& after) {
    uint64_t total = 0;
    for (const auto& [group, ns] :
         cpu_between(before, after, [](pid_t, const std::string&) { return std::string(); })) {
        total += ns;
    }
    return total;
}

}  // namespace outpost::bench

#endif  // OUTPOST_BENCH_THREAD_CPU_H
