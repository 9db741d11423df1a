// What outpostd's second process, outpost-telemetry, must not carry
// (docs/DESIGN.md, "Memory"): it runs the telemetry lane only, so SQLite's
// library pages and page caches belong to outpostd alone. Held at run time,
// where it counts: the libraries mapped into the running process (whatever
// linked or loaded them) and the descriptors it holds. Byte counts are not
// asserted here (they depend on the machine); bench/footprint measures them.
// No broker is needed: both processes run while they reconnect.
#include <dirent.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "daemon_harness.h"
#include "eventually.h"

using nlohmann::json;
using namespace outpost::testing;

namespace {

std::string read_whole(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> entries(const std::string& directory) {
    std::vector<std::string> names;
    if (DIR* dir = ::opendir(directory.c_str())) {
        while (const dirent* entry = ::readdir(dir)) {
            const std::string name = entry->d_name;
            if (name != "." && name != "..") names.push_back(name);
        }
        ::closedir(dir);
    }
    return names;
}

std::string link_target(const std::string& path) {
    char target[4096];
    const ssize_t n = ::readlink(path.c_str(), target, sizeof target);
    return n > 0 ? std::string(target, static_cast<size_t>(n)) : std::string();
}

// outpostd's child running outpost-telemetry, or -1.
pid_t telemetry_child(pid_t daemon) {
    const std::string task = "/proc/" + std::to_string(daemon) + "/task";
    for (const std::string& tid : entries(task)) {
        std::istringstream children(read_whole(task + "/" + tid + "/children"));
        for (pid_t child; children >> child;) {
            const std::string exe = link_target("/proc/" + std::to_string(child) + "/exe");
            if (exe.size() >= 18 && exe.compare(exe.size() - 18, 18, "/outpost-telemetry") == 0) {
                return child;
            }
        }
    }
    return -1;
}

// How many of `pid`'s descriptors are open on `path` or its -wal/-shm.
int descriptors_on(pid_t pid, const std::string& path) {
    const std::string fd_dir = "/proc/" + std::to_string(pid) + "/fd";
    int count = 0;
    for (const std::string& fd : entries(fd_dir)) {
        if (link_target(fd_dir + "/" + fd).rfind(path, 0) == 0) ++count;
    }
    return count;
}

bool maps_library(pid_t pid, const std::string& library) {
    return read_whole("/proc/" + std::to_string(pid) + "/maps").find(library) != std::string::npos;
}

// A configuration with a telemetry lane; the broker is unreachable, so the
// publisher and the lane keep reconnecting.
json config_with_telemetry(const TempDir& dir) {
    json config = offline_daemon_config(dir, "gw-footprint");
    config["telemetry"] = {{"datagram_socket", dir.file("telemetry.sock")}};
    return config;
}

// Waits until both processes run and returns outpost-telemetry's pid:
// outpostd binds its alarm socket after the store is open; the child binds
// the datagram socket itself.
pid_t once_both_run(const TempDir& dir, const DaemonProcess& daemon) {
    pid_t telemetry = -1;
    REQUIRE(eventually([&] {
        telemetry = telemetry_child(daemon.pid());
        return telemetry > 0 && ::access(dir.file("alarms.sock").c_str(), F_OK) == 0 &&
               ::access(dir.file("telemetry.sock").c_str(), F_OK) == 0;
    }));
    return telemetry;
}

}  // namespace

TEST_CASE("outpost-telemetry maps no SQLite and holds no descriptor on the store", "[daemon]") {
    TempDir dir;
    DaemonProcess daemon(dir, config_with_telemetry(dir));
    const pid_t telemetry = once_both_run(dir, daemon);
    INFO("outpostd pid " << daemon.pid() << ", outpost-telemetry pid " << telemetry);
    // The probes see what they look for: outpostd itself has both.
    REQUIRE(maps_library(daemon.pid(), "libsqlite3"));
    REQUIRE(descriptors_on(daemon.pid(), dir.file("outbox.db")) > 0);

    CHECK_FALSE(maps_library(telemetry, "libsqlite3"));
    CHECK(descriptors_on(telemetry, dir.file("outbox.db")) == 0);
    CHECK(daemon.terminate() == 0);
}

#if defined(__GLIBC__)
namespace {

// GLIBC_TUNABLES as `pid` was started with it ("" if absent).
std::string glibc_tunables(pid_t pid) {
    std::istringstream environment(read_whole("/proc/" + std::to_string(pid) + "/environ"));
    for (std::string item; std::getline(environment, item, '\0');) {
        if (item.rfind("GLIBC_TUNABLES=", 0) == 0) return item.substr(15);
    }
    return "";
}

}  // namespace

// docs/DESIGN.md, "Memory": glibc's per-thread caches pinned freed chunks
// in the heap; outpostd runs itself once more with them off.
TEST_CASE("outpostd and outpost-telemetry run without glibc's per-thread malloc caches",
          "[daemon]") {
    // glibc's loader ends the process's own copy of GLIBC_TUNABLES after
    // the first setting it applied: started without one, ours is the first.
    ::unsetenv("GLIBC_TUNABLES");
    TempDir dir;
    DaemonProcess daemon(dir, config_with_telemetry(dir));
    const pid_t telemetry = once_both_run(dir, daemon);
    CHECK(glibc_tunables(daemon.pid()).find("glibc.malloc.tcache_count=0") != std::string::npos);
    CHECK(glibc_tunables(telemetry).find("glibc.malloc.tcache_count=0") != std::string::npos);
    CHECK(daemon.terminate() == 0);
}

// Running itself again through /proc/self/exe would name the process
// "exe": pgrep, pidof, top and the journal know it by its name.
TEST_CASE("outpostd keeps its own process name after running itself again", "[daemon]") {
    ::unsetenv("GLIBC_TUNABLES");
    TempDir dir;
    DaemonProcess daemon(dir, config_with_telemetry(dir));
    once_both_run(dir, daemon);
    REQUIRE(glibc_tunables(daemon.pid()).find("glibc.malloc.tcache_count=0") !=
            std::string::npos);  // it did run itself again
    CHECK(read_whole("/proc/" + std::to_string(daemon.pid()) + "/comm") == "outpostd\n");
    CHECK(daemon.terminate() == 0);
}
#endif
