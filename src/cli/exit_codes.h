// Exit codes of outpostctl: scripts branch on these, so they never change.
#ifndef OUTPOST_CLI_EXIT_CODES_H
#define OUTPOST_CLI_EXIT_CODES_H

namespace outpost::cli {

constexpr int kExitOk = 0;
// The store refused or failed the operation (I/O, corruption, busy, ...).
constexpr int kExitOperationalError = 1;
// The command line is malformed: fix it, do not retry.
constexpr int kExitUsage = 2;
// The named event does not exist.
constexpr int kExitNotFound = 3;

}  // namespace outpost::cli

#endif  // OUTPOST_CLI_EXIT_CODES_H
