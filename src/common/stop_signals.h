// How an Outpost service takes SIGTERM and SIGINT: blocked in every thread
// and collected with sigtimedwait by the main loop, so no handler runs in
// the middle of a paho or SQLite call.
#ifndef OUTPOST_COMMON_STOP_SIGNALS_H
#define OUTPOST_COMMON_STOP_SIGNALS_H

#include <signal.h>

namespace outpost {

// Blocks SIGINT and SIGTERM in the calling thread (call it before starting
// any thread: new threads inherit the mask) and ignores SIGPIPE (a socket
// the peer closed gives EPIPE, not death). Returns the set to wait for.
sigset_t block_stop_signals();

}  // namespace outpost

#endif  // OUTPOST_COMMON_STOP_SIGNALS_H
