// Starting a program from a test, a benchmark or the proof toolkit: the one
// place that builds a child's environment and spawns it with its output in a
// log file.
//
// The environment rule: the child gets this process's environment, except
// that a variable the caller passes replaces an inherited one of the same
// name. Each name appears once: getenv() returns the first match, so an
// inherited entry left in front of the passed one would win (a test passing
// NOTIFY_SOCKET under a runner that has its own would talk to the runner's).
//
// Errors throw std::runtime_error: this is test scaffolding, not product code.
#ifndef OUTPOST_TESTS_CHILD_PROCESS_H
#define OUTPOST_TESTS_CHILD_PROCESS_H

#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

extern char** environ;

namespace outpost::testing {

// Full path of `program` on $PATH (plus /usr/sbin, where Debian puts
// mosquitto), or "" when absent.
inline std::string find_program(const std::string& program) {
    std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
    path += ":/usr/sbin:/usr/local/sbin";
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
        if (dir.empty()) continue;
        std::string candidate = dir + "/" + program;
        if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    }
    return "";
}

// The environment for a child ("NAME=value" entries): `inherited` (a
// null-terminated list, this process's environment by default) without the
// names `passed` sets, then `passed`. Of a name passed twice, the last wins.
inline std::vector<std::string> child_environment(const std::vector<std::string>& passed,
                                                  char* const* inherited = environ) {
    auto name_of = [](const std::string& entry) { return entry.substr(0, entry.find('=')); };
    std::set<std::string> names;
    std::vector<std::string> last_passed;  // the last entry of each name, from the end
    for (auto entry = passed.rbegin(); entry != passed.rend(); ++entry) {
        if (names.insert(name_of(*entry)).second) last_passed.push_back(*entry);
    }
    std::vector<std::string> env;
    for (char* const* item = inherited; item != nullptr && *item != nullptr; ++item) {
        const std::string entry(*item);
        if (names.count(name_of(entry)) == 0) env.push_back(entry);
    }
    env.insert(env.end(), last_passed.rbegin(), last_passed.rend());
    return env;
}

// Spawns `argv` (argv[0] a path, not searched on $PATH) with stdout and
// stderr appended to `log_path`, in child_environment(passed_env). Returns
// its pid; the caller waits for it. Throws when it cannot be started.
inline pid_t spawn_logged(const std::vector<std::string>& argv, const std::string& log_path,
                          const std::vector<std::string>& passed_env = {}) {
    if (argv.empty()) throw std::runtime_error("spawn: no program given");
    std::vector<char*> args;
    for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    const std::vector<std::string> env_entries = child_environment(passed_env);
    std::vector<char*> env;
    for (const auto& entry : env_entries) env.push_back(const_cast<char*>(entry.c_str()));
    env.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND,
                                     0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, args[0], &actions, nullptr, args.data(), env.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error("spawn " + argv[0] + ": " + std::strerror(rc));
    return pid;
}

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_CHILD_PROCESS_H
