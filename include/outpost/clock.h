// Time and identity of the running boot, behind an interface so that tests can
// jump the wall clock or simulate a reboot without touching the machine.
//
// Gateways have no battery-backed clock: they boot at 1970 and jump when NTP
// arrives. Outpost therefore never bases a decision on wall time. Wall time is
// only recorded (occurredAt) next to the boot id and the time since boot, so
// that the cloud can correct times recorded before NTP.
#ifndef OUTPOST_CLOCK_H
#define OUTPOST_CLOCK_H

#include <cstdint>
#include <string>

#include "outpost/export.h"

namespace outpost {

class OUTPOST_API Clock {
public:
    virtual ~Clock() = default;
    // Milliseconds since the Unix epoch by the wall clock. May jump either way.
    virtual int64_t wall_ms() const = 0;
    // Milliseconds since boot, counting suspend (CLOCK_BOOTTIME). Never goes
    // backwards within one boot.
    virtual int64_t boot_ms() const = 0;
    // The same clock in microseconds, for latency figures finer than a
    // millisecond. The default scales boot_ms(), so a clock written before
    // this existed keeps working (with millisecond steps).
    virtual int64_t boot_us() const { return boot_ms() * 1000; }
    // An id that differs for every boot of the machine (the kernel's boot_id).
    virtual std::string boot_id() const = 0;
};

// The real clocks: CLOCK_REALTIME, CLOCK_BOOTTIME and
// /proc/sys/kernel/random/boot_id. Thread-safe; lives for the whole program.
OUTPOST_API const Clock& system_clock();

}  // namespace outpost

#endif  // OUTPOST_CLOCK_H
