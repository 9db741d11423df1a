// CPU seconds of each part of a fleet run (mosquitto, the bridge's
// processes, the fleet itself), summed over every process a part ever had:
// the broker gets a new pid at each restart. /proc says nothing of a
// process that has exited, so each pid keeps its last reading; the
// orchestrator samples at every phase boundary and every 50 ms while it
// waits, so a broker stopped right after a boundary loses only its
// shutdown. Thread-safe. Fleet tooling (tests/support/fleet).
#ifndef OUTPOST_TESTS_FLEET_CPU_SAMPLER_H
#define OUTPOST_TESTS_FLEET_CPU_SAMPLER_H

#include <sys/types.h>

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "process_cpu.h"

namespace outpost::fleet {

class CpuSampler final {
  public:
    // Counts `pid` into `part` from now on (a pid of 0 or below is ignored).
    void track(const std::string& part, pid_t pid) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (pid > 0) pids_[pid] = {part, bench::process_cpu_seconds(pid)};
    }
    // Reads every pid again; one that has exited keeps its last reading.
    void sample() {
        std::lock_guard<std::mutex> lock(mutex_);
        for (auto& [pid, entry] : pids_) {
            const double now = bench::process_cpu_seconds(pid);
            if (now > entry.second) entry.second = now;  // 0 once it is gone
        }
    }
    // The CPU seconds of `part` so far, over all its pids, read now.
    double seconds(const std::string& part) {
        sample();
        std::lock_guard<std::mutex> lock(mutex_);
        double total = 0;
        for (const auto& [pid, entry] : pids_) total += entry.first == part ? entry.second : 0;
        return total;
    }

  private:
    std::mutex mutex_;
    std::map<pid_t, std::pair<std::string, double>> pids_;  // guarded by mutex_
};

}  // namespace outpost::fleet

#endif  // OUTPOST_TESTS_FLEET_CPU_SAMPLER_H
