// Fault points: the slow path, taken only until the environment has been read
// and then only in a process that OUTPOST_FAULT armed.
#include "common/fault_point.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

namespace outpost {
namespace fault_detail {

std::atomic<int> state{kUnread};

namespace {

const char* g_armed_name = nullptr;  // a kFaultPoints name; written once under g_once
unsigned long g_armed_hit = 0;       // 1-based; written once under g_once
bool g_stall = false;                // action "stall"; written once under g_once
std::atomic<unsigned long> g_hits{0};
std::once_flag g_once;

// Returns the table's own pointer for `name`, or nullptr if it is not a point.
const char* canonical(const std::string& name) {
    for (const FaultPointInfo& point : kFaultPoints) {
        if (name == point.name) return point.name;
    }
    return nullptr;
}

void read_environment() {
    const char* value = std::getenv("OUTPOST_FAULT");
    if (value == nullptr || *value == '\0') {
        state.store(kInert, std::memory_order_release);
        return;
    }
    // <name>[:<hit>[:<action>]]
    const std::string spec = value;
    std::string name = spec;
    unsigned long hit = 1;
    bool valid = true;
    const size_t colon = spec.find(':');
    if (colon != std::string::npos) {
        name = spec.substr(0, colon);
        std::string count = spec.substr(colon + 1);
        const size_t second = count.find(':');
        if (second != std::string::npos) {
            const std::string action = count.substr(second + 1);
            count.resize(second);
            if (action == "stall") {
                g_stall = true;
            } else if (action != "kill") {
                valid = false;
            }
        }
        char* end = nullptr;
        errno = 0;
        hit = std::strtoul(count.c_str(), &end, 10);
        if (count.empty() || *end != '\0' || errno != 0 || hit == 0) valid = false;
    }
    g_armed_name = canonical(name);
    g_armed_hit = hit;
    if (g_armed_name == nullptr || !valid) {
        std::fprintf(stderr,
                     "outpost: OUTPOST_FAULT='%s' ignored: expected <fault point>[:<hit >= 1>[:kill|stall]] "
                     "with a point listed in src/common/fault_point.h\n",
                     value);
        g_armed_name = nullptr;
        g_armed_hit = 0;
        g_stall = false;
        state.store(kInert, std::memory_order_release);
        return;
    }
    state.store(kArmed, std::memory_order_release);
}

}  // namespace

void hit_slow(const char* name) {
    std::call_once(g_once, read_environment);
    if (state.load(std::memory_order_acquire) != kArmed) return;
    if (name != g_armed_name && std::strcmp(name, g_armed_name) != 0) return;
    if (g_hits.fetch_add(1, std::memory_order_relaxed) + 1 != g_armed_hit) return;
    if (g_stall) {
        // A hung thread: it holds whatever it holds, forever. Sleep rather
        // than pause(): a signal handled elsewhere in the process must not
        // wake it.
        for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
    }
    // A crash, not an exit: no destructor, no buffered output, no SQLite close.
    ::kill(::getpid(), SIGKILL);
    ::pause();  // SIGKILL cannot be blocked; never returns
}

}  // namespace fault_detail

const char* armed_fault_point() {
    fault_detail::hit_slow("");  // reads the environment once; "" is never armed
    return fault_detail::g_armed_name;
}

unsigned long armed_fault_hit() {
    fault_detail::hit_slow("");
    return fault_detail::g_armed_hit;
}

bool armed_fault_stalls() {
    fault_detail::hit_slow("");
    return fault_detail::g_stall;
}

unsigned long armed_fault_hits_so_far() {
    fault_detail::hit_slow("");
    return fault_detail::g_hits.load(std::memory_order_relaxed);
}

}  // namespace outpost
