// The outpostctl commands. Each returns an exit code (exit_codes.h) and has
// already printed its result or its error when it returns.
#ifndef OUTPOST_CLI_COMMANDS_H
#define OUTPOST_CLI_COMMANDS_H

#include <string>
#include <vector>

#include "cli/arguments.h"
#include "cli/context.h"

namespace outpost::cli {

struct Command {
    const char* name;
    const char* summary;  // one line for the tool's --help
    const char* usage;    // the command's --help text
    OptionSpec options;
    int (*run)(Context& context);
};

// Every command, in the order --help lists them.
const std::vector<Command>& all_commands();

int run_status(Context& context);
int run_list(Context& context);
int run_show(Context& context);
int run_replay(Context& context);
int run_purge(Context& context);
int run_raise_alarm(Context& context);

}  // namespace outpost::cli

#endif  // OUTPOST_CLI_COMMANDS_H
