// Bounded waits on outcomes: tests wait for a condition, never for a time.
#ifndef OUTPOST_TESTS_EVENTUALLY_H
#define OUTPOST_TESTS_EVENTUALLY_H

#include <chrono>
#include <functional>
#include <thread>

namespace outpost::testing {

// Polls `done` every 10 ms until it holds or `limit` passes; returns whether
// it held. Outcomes are waited for, never timed.
inline bool eventually(const std::function<bool()>& done,
                       std::chrono::milliseconds limit = std::chrono::seconds(30)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (!done()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
}

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_EVENTUALLY_H
