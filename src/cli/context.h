// What every outpostctl command gets: its parsed arguments, where to write,
// and the one way to open the store and to turn a Status into an exit code.
#ifndef OUTPOST_CLI_CONTEXT_H
#define OUTPOST_CLI_CONTEXT_H

#include <memory>
#include <ostream>
#include <string>

#include "cli/arguments.h"
#include "outpost/status.h"
#include "outpost/store.h"

namespace outpost::cli {

struct Context {
    ParsedArguments args;
    bool json = false;
    std::ostream& out;
    std::ostream& err;
};

// Prints "outpostctl: <message>" and the hint to use --help; returns kExitUsage.
int usage_error(Context& context, const std::string& message);

// Prints "outpostctl: <what>: <status>" on stderr; returns kExitNotFound for
// kNotFound and kExitOperationalError otherwise.
int operation_error(Context& context, const std::string& what, const Status& status);

// Opens the store named by --db. Unless `create_with_gateway` is set, the
// file must already exist (an operator tool must not conjure an empty store
// from a typo). On failure prints the reason, sets `exit_code` and returns null.
std::unique_ptr<Store> open_store(Context& context, const std::string& create_with_gateway,
                                  int& exit_code);

}  // namespace outpost::cli

#endif  // OUTPOST_CLI_CONTEXT_H
