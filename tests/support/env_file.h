// The env files the test runner's service scripts write (scripts/rocketmq.sh,
// scripts/postgres.sh: KEY=VALUE lines), read the one way every test reads
// them.
#ifndef OUTPOST_TESTS_ENV_FILE_H
#define OUTPOST_TESTS_ENV_FILE_H

#include <cstdlib>
#include <fstream>
#include <map>
#include <string>

namespace outpost::testing {

using EnvFile = std::map<std::string, std::string>;

// The KEY=VALUE lines of `path` (a value runs to the end of its line and
// may hold '='); lines without '=' are skipped. Empty if unreadable.
inline EnvFile read_env_file(const std::string& path) {
    EnvFile values;
    std::ifstream file(path);
    for (std::string line; std::getline(file, line);) {
        const auto equals = line.find('=');
        if (equals != std::string::npos) values[line.substr(0, equals)] = line.substr(equals + 1);
    }
    return values;
}

// The env file named by the environment variable `variable`; empty when the
// variable is unset or empty (the runner started no such service).
inline EnvFile env_file_of(const char* variable) {
    const char* path = std::getenv(variable);
    if (path == nullptr || *path == '\0') return {};
    return read_env_file(path);
}

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_ENV_FILE_H
