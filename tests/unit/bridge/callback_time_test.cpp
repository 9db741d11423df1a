// A retired session's quiet rule (src/bridge/mqtt/callback_time.h; bridge
// invariant 7): only time in which paho's receive thread was free of every
// callback counts as quiet, so a session whose messages wait behind a held
// callback is never taken for drained. Times are given, not slept.
#include "bridge/mqtt/callback_time.h"

#include <catch2/catch.hpp>

using namespace outpost::bridge;
using namespace std::chrono_literals;

namespace {

const SteadyTime kCallbackBase = SteadyTime{} + 1000s;

}  // namespace

TEST_CASE("with the receive thread free, a session is quiet once the bound has passed") {
    CallbackTime callbacks;
    QuietClock quiet;
    quiet.restart(kCallbackBase, callbacks);
    CHECK_FALSE(quiet.quiet_for(2s, kCallbackBase + 1999ms, callbacks));
    CHECK(quiet.quiet_for(2s, kCallbackBase + 2s, callbacks));
}

TEST_CASE("time another session's callback held the receive thread is not quiet") {
    CallbackTime callbacks;
    QuietClock quiet;
    quiet.restart(kCallbackBase, callbacks);
    callbacks.enter(kCallbackBase + 500ms);  // a live session holds a message for 1.5 s
    CHECK(callbacks.held());
    callbacks.leave(kCallbackBase + 2s);
    CHECK_FALSE(callbacks.held());
    CHECK(callbacks.total(kCallbackBase + 3s) == 1500ms);
    // 3 s since the restart, 1.5 s of them free.
    CHECK_FALSE(quiet.quiet_for(2s, kCallbackBase + 3s, callbacks));
    CHECK(quiet.quiet_for(2s, kCallbackBase + 3500ms, callbacks));
}

TEST_CASE("a callback still holding the thread keeps the session from ever being quiet") {
    // A live session held through a long RocketMQ outage: minutes pass, and
    // none of it counts.
    CallbackTime callbacks;
    QuietClock quiet;
    quiet.restart(kCallbackBase, callbacks);
    callbacks.enter(kCallbackBase + 1s);
    for (const auto later : {3s, 60s, 600s}) {
        INFO(later.count() << " s after the restart");
        CHECK(callbacks.total(kCallbackBase + later) == later - 1s);
        CHECK_FALSE(quiet.quiet_for(2s, kCallbackBase + later, callbacks));
    }
    callbacks.leave(kCallbackBase + 600s);
    // Free: the second before the hold and what follows it.
    CHECK_FALSE(quiet.quiet_for(2s, kCallbackBase + 600500ms, callbacks));
    CHECK(quiet.quiet_for(2s, kCallbackBase + 601s, callbacks));
}

TEST_CASE("busy time before the restart does not count against the quiet after it") {
    CallbackTime callbacks;
    callbacks.enter(kCallbackBase);
    callbacks.leave(kCallbackBase + 10s);  // the session's own last message, 10 s in the callback
    QuietClock quiet;
    quiet.restart(kCallbackBase + 10s, callbacks);
    CHECK(quiet.quiet_for(2s, kCallbackBase + 12s, callbacks));
}

TEST_CASE("a leave without an enter changes nothing") {
    CallbackTime callbacks;
    callbacks.leave(kCallbackBase);
    CHECK_FALSE(callbacks.held());
    CHECK(callbacks.total(kCallbackBase + 5s) == 0s);
}
