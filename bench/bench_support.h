// What every benchmark program here needs: "--name=N" integer arguments and
// the order statistics it prints. Header-only; bench programs only.
#ifndef OUTPOST_BENCH_SUPPORT_H
#define OUTPOST_BENCH_SUPPORT_H

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace outpost::bench {

// Sets each "--name=N" of argv into the int `flags` maps it to (values below
// `minimum` are raised to it). Anything else, or --help, prints the usage
// line built from the flag names and their current values (the defaults)
// and returns false: the caller exits with status 2.
inline bool parse_int_flags(int argc, char** argv, const std::map<std::string, int*>& flags,
                            int minimum = 1) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const std::size_t equals = arg.find('=');
        auto flag = flags.find(arg.substr(0, equals));
        if (equals == std::string::npos || flag == flags.end() || equals + 1 == arg.size()) {
            std::string usage = std::string("usage: ") + argv[0];
            for (const auto& [name, value] : flags) {
                usage += " [" + name + "=" + std::to_string(*value) + "]";
            }
            std::fprintf(stderr, "%s\n", usage.c_str());
            return false;
        }
        *flag->second = std::max(minimum, std::atoi(arg.c_str() + equals + 1));
    }
    return true;
}

// The sample at `fraction` (0..1) of the sorted samples; 0 when empty.
inline double percentile(std::vector<double> samples, double fraction) {
    if (samples.empty()) return 0;
    std::sort(samples.begin(), samples.end());
    const auto index = static_cast<std::size_t>(fraction * static_cast<double>(samples.size() - 1));
    return samples[index];
}

// A PublisherStatus latency (microseconds, -1 for no sample) in
// milliseconds, -1 kept.
inline double ms_of_us(int64_t microseconds) {
    return microseconds < 0 ? -1.0 : static_cast<double>(microseconds) / 1000.0;
}

inline double median(std::vector<double> values) {
    return percentile(std::move(values), 0.5);
}

// fsync latency of the disk under `dir`: `count` appends of 4 KiB, each
// followed by fdatasync, as SQLite's WAL commit does. Milliseconds; empty
// if the probe file cannot be written.
inline std::vector<double> disk_sync_ms(const std::string& dir, int count) {
    const std::string path = dir + "/fsync-probe";
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) return {};
    std::vector<char> page(4096, 'x');
    using Clock = std::chrono::steady_clock;
    std::vector<double> samples;
    for (int i = 0; i < count; ++i) {
        if (::write(fd, page.data(), page.size()) != static_cast<ssize_t>(page.size())) break;
        const auto start = Clock::now();
        if (::fdatasync(fd) != 0) break;
        samples.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    }
    ::close(fd);
    ::unlink(path.c_str());
    return samples;
}

// The 1-minute load average (/proc/loadavg), -1 when unreadable: the box is
// shared, and timing figures mean little without it.
inline double load_average_1m() {
    double load = -1;
    std::ifstream("/proc/loadavg") >> load;
    return load;
}

}  // namespace outpost::bench

#endif  // OUTPOST_BENCH_SUPPORT_H
