// Waiting for an outcome in a test: the condition is checked until it holds
// or a deadline passes. Outcomes are waited for, never timed.
#ifndef OUTPOST_TESTS_EVENTUALLY_H
#define OUTPOST_TESTS_EVENTUALLY_H

#include <chrono>
#include <functional>
#include <thread>

namespace outpost::testing {

// Checks `done` every 10 ms until it holds or `limit` passes; returns
// whether it held. For state that nothing signals (a database file, another
// process); where the code under test can signal, wait on that instead.
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
