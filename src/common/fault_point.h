// Named fault points: places in the pipeline where a test may kill the process
// with SIGKILL, to prove that a crash at exactly that step loses nothing that
// was acknowledged and publishes nothing that was not committed.
//
// Fault points exist only in builds configured with them: the meson option
// fault_points, on by default in the debug and debugoptimized build types
// (the test builds) and off in release, minsize and plain. Off, every
// OUTPOST_FAULT_POINT is only its compile-time name check: no code, no
// environment read, no trace in the binary, and OUTPOST_FAULT means nothing
// (tests/integration/daemon/fault_points_build_test.cpp proves it on
// outpostd). On, a point is inert unless the environment variable
// OUTPOST_FAULT names it when the process first reaches any fault point:
//
//   OUTPOST_FAULT=store.after_commit        SIGKILL at the first hit
//   OUTPOST_FAULT=store.after_commit:3      SIGKILL at the third hit
//   OUTPOST_FAULT=publish.loop:5:stall      the thread making the fifth hit
//                                           blocks forever (the rest of the
//                                           process runs on): a hung thread,
//                                           for watchdog tests
//
// Hits are counted per process, over all threads. An OUTPOST_FAULT that names
// no point in kFaultPoints, or a bad count, is reported once on stderr and
// leaves every point inert.
//
// Cost when inert: one relaxed atomic load and a predictable branch per hit
// (about a nanosecond); the environment is read once per process. When armed,
// each hit of any point also compares one pointer and, if it differs, one
// string: still far below the cost of the SQLite call next to it.
//
// Adding a point is a one-liner: a row in kFaultPoints below, then
// OUTPOST_FAULT_POINT("its.name") where it belongs. A name that is not in the
// table does not compile. Tests iterate over kFaultPoints: a new "store" or
// "store-long" row is exercised by the kill campaign (outpost-torture --mode
// kill) and tests/faults/store with no more code; a "publish" row by the
// end-to-end campaign (outpost-torture --mode e2e) and tests/e2e; a "bridge"
// row by the bridge crash test in tests/e2e; a "consumer" row by the e2e
// campaign's consumer leg.
#ifndef OUTPOST_COMMON_FAULT_POINT_H
#define OUTPOST_COMMON_FAULT_POINT_H

#include <atomic>
#include <cstddef>

// 1 or 0, from the meson option through common_dep. Never guessed: a target
// that includes this header without declaring common_dep must not silently
// get a build with points, or one without.
#if !defined(OUTPOST_FAULT_POINTS)
#error "OUTPOST_FAULT_POINTS is not set: declare common_dep in meson.build"
#endif

namespace outpost {

struct FaultPointInfo {
    const char* name;   // "<part>.<step>"; what OUTPOST_FAULT names
    const char* where;  // the step, for people reading a failure report
    // What must run for the point to be reached: "store" (any store
    // writes), "store-long" (enough writes for the WAL to pass the store's
    // checkpoint threshold, 1000 frames), "publish", "bridge", "consumer"
    // (the Java reference consumer).
    const char* workload;
};

// Every fault point of the project, in pipeline order.
inline constexpr FaultPointInfo kFaultPoints[] = {
    {"store.before_commit", "batch transaction complete, COMMIT not yet run", "store"},
    {"store.after_commit", "COMMIT returned OK, callers not yet released", "store"},
    {"store.mid_mark", "between two UPDATEs of a batched SENT mark (one per run of consecutive ids)", "store"},
    {"store.mid_purge", "purge deleted alarm records, not yet their events", "store"},
    {"store.before_checkpoint", "WAL hook, checkpoint about to run", "store-long"},
    {"store.after_checkpoint", "WAL hook, checkpoint returned", "store-long"},
    {"publish.loop", "publisher thread, one round of its loop", "publish"},
    {"publish.after_publish", "handed to the MQTT client, PUBACK not yet received", "publish"},
    {"publish.after_puback", "PUBACK received, SENT not yet marked", "publish"},
    {"bridge.before_send", "message validated, RocketMQ send not started", "bridge"},
    {"bridge.after_send", "SEND_OK received, MQTT PUBACK not yet sent", "bridge"},
    // Hit by outpost-consumer (Java, consumer: FaultPoints.java holds the
    // same names, and its tests compare the two lists), not by C++ code.
    {"consumer.before_commit", "business rows and dedupe record written, COMMIT not yet run",
     "consumer"},
    {"consumer.after_commit", "COMMIT returned, offset not yet acknowledged to RocketMQ",
     "consumer"},
};

inline constexpr std::size_t kFaultPointCount = sizeof(kFaultPoints) / sizeof(kFaultPoints[0]);

namespace fault_detail {

constexpr bool same_name(const char* a, const char* b) {
    while (*a != '\0' && *a == *b) {
        ++a;
        ++b;
    }
    return *a == *b;
}

}  // namespace fault_detail

// True if `name` is a row of kFaultPoints. Usable at compile time.
constexpr bool is_fault_point(const char* name) {
    for (const FaultPointInfo& point : kFaultPoints) {
        if (fault_detail::same_name(point.name, name)) return true;
    }
    return false;
}

#if OUTPOST_FAULT_POINTS

namespace fault_detail {

enum State : int { kUnread = 0, kInert = 1, kArmed = 2 };
// Which of the above; written once, when the environment is read.
extern std::atomic<int> state;
// Reads the environment if needed, counts the hit, kills at the armed hit.
void hit_slow(const char* name);

}  // namespace fault_detail

// Counts one hit of `name` and, if OUTPOST_FAULT names it and this is the
// N-th hit, kills the process with SIGKILL (no destructors, no flushing: the
// same as a crash), or with the "stall" action blocks the calling thread
// forever. Use the macro, which checks the name at compile time.
inline void fault_point_hit(const char* name) {
    if (fault_detail::state.load(std::memory_order_relaxed) != fault_detail::kInert) {
        fault_detail::hit_slow(name);
    }
}

// The point and hit count OUTPOST_FAULT arms in this process, or nullptr and 0
// when every point is inert. Reads the environment on first use.
const char* armed_fault_point();
unsigned long armed_fault_hit();
// True when OUTPOST_FAULT arms the "stall" action instead of the kill.
bool armed_fault_stalls();
// Hits of the armed point so far in this process (0 when inert): a run that
// ends without being killed reports how far the point was reached.
unsigned long armed_fault_hits_so_far();

#endif  // OUTPOST_FAULT_POINTS

}  // namespace outpost

#if OUTPOST_FAULT_POINTS
#define OUTPOST_FAULT_POINT(name)                                                               \
    do {                                                                                        \
        static_assert(::outpost::is_fault_point(name),                                          \
                      "unknown fault point " name ": add it to kFaultPoints in fault_point.h"); \
        ::outpost::fault_point_hit(name);                                                       \
    } while (0)
#else
#define OUTPOST_FAULT_POINT(name)                                                               \
    do {                                                                                        \
        static_assert(::outpost::is_fault_point(name),                                          \
                      "unknown fault point " name ": add it to kFaultPoints in fault_point.h"); \
    } while (0)
#endif

#endif  // OUTPOST_COMMON_FAULT_POINT_H
