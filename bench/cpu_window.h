// The CPU each process spent in one measured window, per message: user +
// system time from /proc/PID/stat (process_cpu.h), so threads that ended
// inside the window count too. Header-only; bench programs only.
#ifndef OUTPOST_BENCH_CPU_WINDOW_H
#define OUTPOST_BENCH_CPU_WINDOW_H

#include <sys/types.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "process_cpu.h"

namespace outpost::bench {

class CpuWindow final {
  public:
    // Starts the window; `parts` are (name, pid), several pids may share a name.
    void begin(const std::vector<std::pair<std::string, pid_t>>& parts) {
        parts_.clear();
        for (const auto& [name, pid] : parts) {
            if (pid > 0) parts_.push_back({name, pid, process_cpu_seconds(pid)});
        }
        machine_ = machine_ticks();
        started_ = std::chrono::steady_clock::now();
    }
    // Ends it: {"per_msg": {part: µs, ..., "total": µs}, "cores_busy": the
    // parts' CPU over the wall time, "machine_busy": the whole machine's
    // busy share over the window}.
    nlohmann::json end(std::size_t messages) {
        const double wall =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
        const MachineTicks machine = machine_ticks();
        std::map<std::string, double> seconds;
        double total = 0;
        for (const Part& part : parts_) {
            const double used = process_cpu_seconds(part.pid) - part.cpu_at_begin;
            seconds[part.name] += used;
            total += used;
        }
        nlohmann::json per_msg = nlohmann::json::object();
        const double count = static_cast<double>(std::max<std::size_t>(1, messages));
        for (const auto& [name, used] : seconds) per_msg[name] = std::round(used * 1e6 / count);
        per_msg["total"] = std::round(total * 1e6 / count);
        const double ticks = machine.total - machine_.total;
        return {{"per_msg", per_msg},
                {"cores_busy", wall > 0 ? std::round(total / wall * 100) / 100 : 0},
                {"machine_busy",
                 ticks > 0 ? std::round((machine.busy - machine_.busy) / ticks * 100) / 100 : 0}};
    }

  private:
    struct Part {
        std::string name;
        pid_t pid;
        double cpu_at_begin;
    };
    std::vector<Part> parts_;
    MachineTicks machine_;
    std::chrono::steady_clock::time_point started_;
};

}  // namespace outpost::bench

#endif  // OUTPOST_BENCH_CPU_WINDOW_H
