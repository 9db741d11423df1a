// Common set-up for store tests: options, a manual clock, sample alarms.
#ifndef OUTPOST_TESTS_STORE_FIXTURE_H
#define OUTPOST_TESTS_STORE_FIXTURE_H

#include <atomic>
#include <memory>
#include <string>

#include "outpost/clock.h"
#include "outpost/store.h"

namespace outpost::testing {

// A clock the test moves by hand. Thread-safe.
class ManualClock final : public Clock {
public:
    int64_t wall_ms() const override { return wall_.load(); }
    int64_t boot_ms() const override { return boot_.load(); }
    std::string boot_id() const override { return boot_id_; }
    void advance(int64_t ms) {
        wall_ += ms;
        boot_ += ms;
    }
    void jump_wall(int64_t ms) { wall_ += ms; }
    // A reboot: new boot id, uptime from zero; the wall clock is unchanged.
    void reboot(const std::string& new_boot_id) {
        boot_id_ = new_boot_id;
        boot_ = 0;
    }

private:
    std::atomic<int64_t> wall_{1'700'000'000'000};
    std::atomic<int64_t> boot_{60'000};
    std::string boot_id_ = "11111111-2222-3333-4444-555555555555";
};

inline StoreOptions test_options(const Clock* clock = nullptr) {
    StoreOptions options;
    options.gateway_id = "gw-test";
    options.clock = clock;
    return options;
}

inline Alarm sample_alarm(const std::string& device = "pump-1", const std::string& key = "") {
    Alarm alarm;
    alarm.device_id = device;
    alarm.alarm_type = "OVER_TEMPERATURE";
    alarm.severity = Severity::kCritical;
    alarm.value = 97.5;
    alarm.unit = "degC";
    alarm.text = "bearing temperature above limit";
    alarm.idempotency_key = key;
    return alarm;
}

inline std::unique_ptr<Store> open_store(const std::string& path, const StoreOptions& options) {
    auto store = Store::open(path, options);
    if (!store) throw std::runtime_error("open " + path + ": " + store.status().to_string());
    return std::move(*store);
}

inline const Status& status_of(const Status& status) { return status; }
template <typename T>
const Status& status_of(const Result<T>& result) {
    return result.status();
}

}  // namespace outpost::testing

// REQUIRE that a Status or Result is OK, printing the error when it is not.
#define REQUIRE_OK(expr)                                                      \
    do {                                                                      \
        const auto& require_ok_value_ = (expr);                               \
        INFO(::outpost::testing::status_of(require_ok_value_).to_string());   \
        REQUIRE(require_ok_value_.is_ok());                                   \
    } while (0)

#endif  // OUTPOST_TESTS_STORE_FIXTURE_H
