// What every benchmark program here needs: "--name=N" integer arguments and
// the order statistics it prints. Header-only; bench programs only.
#ifndef OUTPOST_BENCH_SUPPORT_H
#define OUTPOST_BENCH_SUPPORT_H

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
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

inline double median(std::vector<double> values) {
    return percentile(std::move(values), 0.5);
}

}  // namespace outpost::bench

#endif  // OUTPOST_BENCH_SUPPORT_H
