#include "outpost/clock.h"

#include <time.h>

#include <fstream>
#include <string>

namespace outpost {
namespace {

int64_t read_ms(clockid_t id) {
    timespec ts{};
    clock_gettime(id, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

int64_t read_us(clockid_t id) {
    timespec ts{};
    clock_gettime(id, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
}

std::string read_boot_id() {
    std::ifstream in("/proc/sys/kernel/random/boot_id");
    std::string id;
    std::getline(in, id);
    // Without /proc (a chroot, an odd container) every process start counts as
    // a new boot: the conservative answer for lease and retention decisions.
    if (id.empty()) id = "unknown-boot-" + std::to_string(read_ms(CLOCK_REALTIME));
    return id;
}

class SystemClock final : public Clock {
public:
    SystemClock() : boot_id_(read_boot_id()) {}
    int64_t wall_ms() const override { return read_ms(CLOCK_REALTIME); }
    int64_t boot_ms() const override { return read_ms(CLOCK_BOOTTIME); }
    int64_t boot_us() const override { return read_us(CLOCK_BOOTTIME); }
    std::string boot_id() const override { return boot_id_; }

private:
    const std::string boot_id_;
};

}  // namespace

const Clock& system_clock() {
    static const SystemClock clock;
    return clock;
}

}  // namespace outpost
