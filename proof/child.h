// Running one torture child: this same program started again (fork + exec of
// /proc/self/exe, so the child has a fresh SQLite and fault-point state) with
// the write end of a pipe as its evidence channel.
#ifndef OUTPOST_PROOF_CHILD_H
#define OUTPOST_PROOF_CHILD_H

#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "proof/evidence.h"

namespace outpost::torture {

struct ChildExit {
    bool exited = false;  // returned from main or called exit
    int code = -1;        // when exited
    int signal = 0;       // when killed by a signal
    std::string error;    // could not start, or bad evidence

    bool killed_by(int sig) const { return !exited && signal == sig; }
    std::string describe() const;
};

// Starts the child with `args` (after argv[0]) plus "--evidence-fd N", with
// `env` added to its environment, reads its evidence into `log` until the
// pipe closes, and waits for it.
ChildExit run_child(const std::vector<std::string>& args,
                    const std::vector<std::pair<std::string, std::string>>& env,
                    faults::EvidenceLog& log);

// Runs `command` through the shell; returns its stdout and, if `status` is
// given, stores the wait status (pclose) there.
std::string run_command(const std::string& command, int* status = nullptr);

// Polls `done` every 5 ms until it holds (true) or `limit` passes (false).
bool poll_until(const std::function<bool()>& done, std::chrono::milliseconds limit);

// Scratch directories.
std::string make_scratch_dir(const std::string& parent);  // empty string on failure
bool make_dir(const std::string& path);
void remove_tree(const std::string& path);

}  // namespace outpost::torture

#endif  // OUTPOST_PROOF_CHILD_H
