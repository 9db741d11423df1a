// The one spawning helper of the tests (tests/support/child_process.h): the
// child gets this process's environment, and a variable the caller passes
// replaces an inherited one of the same name.
#include "child_process.h"

#include <sys/wait.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "temp_dir.h"

using outpost::testing::child_environment;
using outpost::testing::spawn_logged;
using outpost::testing::TempDir;
using Entries = std::vector<std::string>;

namespace {

// The lines `program` printed into `log_path`; runs it to its end.
Entries run_to_end(const std::vector<std::string>& argv, const std::string& log_path,
                   const Entries& passed_env) {
    const pid_t pid = spawn_logged(argv, log_path, passed_env);
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    std::ifstream log(log_path);
    Entries lines;
    for (std::string line; std::getline(log, line);) lines.push_back(line);
    return lines;
}

Entries starting_with(const Entries& lines, const std::string& prefix) {
    Entries found;
    for (const std::string& line : lines) {
        if (line.rfind(prefix, 0) == 0) found.push_back(line);
    }
    return found;
}

}  // namespace

TEST_CASE("a spawned program sees the NOTIFY_SOCKET the caller passes, not the inherited one") {
    REQUIRE(::setenv("NOTIFY_SOCKET", "/run/systemd/the-runners.sock", 1) == 0);
    REQUIRE(::setenv("OUTPOST_SPAWN_TEST_INHERITED", "kept", 1) == 0);
    TempDir dir;
    const Entries env =
        run_to_end({"/usr/bin/env"}, dir.file("env.log"), {"NOTIFY_SOCKET=" + dir.file("notify")});
    CHECK(starting_with(env, "NOTIFY_SOCKET=") == Entries{"NOTIFY_SOCKET=" + dir.file("notify")});
    CHECK(starting_with(env, "OUTPOST_SPAWN_TEST_INHERITED=") ==
          Entries{"OUTPOST_SPAWN_TEST_INHERITED=kept"});
    ::unsetenv("NOTIFY_SOCKET");
    ::unsetenv("OUTPOST_SPAWN_TEST_INHERITED");
}

TEST_CASE("the child environment keeps each name once: inherited ones in order, then the passed") {
    const char* inherited[] = {"PATH=/usr/bin", "NOTIFY_SOCKET=/run/a", "HOME=/root",
                               "NOTIFY_SOCKETS=/run/other", nullptr};
    char* const* entries = const_cast<char* const*>(inherited);
    CHECK(child_environment({}, entries) ==
          Entries{"PATH=/usr/bin", "NOTIFY_SOCKET=/run/a", "HOME=/root", "NOTIFY_SOCKETS=/run/other"});
    CHECK(child_environment({"NOTIFY_SOCKET=/run/b", "EXTRA=1"}, entries) ==
          Entries{"PATH=/usr/bin", "HOME=/root", "NOTIFY_SOCKETS=/run/other",
                  "NOTIFY_SOCKET=/run/b", "EXTRA=1"});
    // Passed twice: the last one counts, once.
    CHECK(child_environment({"EXTRA=1", "HOME=/tmp", "EXTRA=2"}, entries) ==
          Entries{"PATH=/usr/bin", "NOTIFY_SOCKET=/run/a", "NOTIFY_SOCKETS=/run/other", "HOME=/tmp",
                  "EXTRA=2"});
}
