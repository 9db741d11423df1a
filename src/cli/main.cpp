// outpostctl: the operator's tool for a gateway store database. It opens the
// database file directly (next to a running publisher if need be: SQLite
// locking and the lease keep them apart) and runs one command; status and
// raise-alarm can also go through a running outpostd's socket (--socket).
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli/arguments.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/exit_codes.h"

namespace outpost::cli {
namespace {

void print_tool_help(std::ostream& out) {
    out << "Usage: outpostctl --db PATH [--json] COMMAND [ARGS]\n"
           "       outpostctl --socket PATH [--json] status|raise-alarm [ARGS]\n"
           "Inspects and repairs an Outpost gateway store.\n\n"
           "Commands:\n";
    for (const auto& command : all_commands()) {
        std::string name = command.name;
        out << "  " << name << std::string(14 - name.size(), ' ') << command.summary << "\n";
    }
    out << "\nGlobal options:\n"
           "  --db PATH         the store's database file\n"
           "  --socket PATH     a running outpostd's socket (status, raise-alarm);\n"
           "                    outpostd listens on /run/outpost/outpostd.sock by default\n"
           "  --json            machine-readable output on stdout\n"
           "  --quota-bytes N   quota to report and enforce (default 64 MiB)\n"
           "  --check           check the whole database file first (PRAGMA quick_check;\n"
           "                    reads every page: outpostd does it once per boot); damage\n"
           "                    is reported as corruption and the command does not run\n"
           "  --help            this text; 'outpostctl COMMAND --help' for a command\n\n"
           "Exit codes: 0 ok, 1 operational error, 2 usage error, 3 event not found.\n";
}

int run(const std::vector<std::string>& words) {
    std::string error;
    ParsedArguments first = parse_command_word(words, error);
    Context context{first, first.has("--json"), std::cout, std::cerr};
    if (!error.empty()) return usage_error(context, error);
    if (first.command.empty()) {
        if (first.has("--help")) {
            print_tool_help(std::cout);
            return kExitOk;
        }
        return usage_error(context, "no command given");
    }
    for (const auto& command : all_commands()) {
        if (first.command != command.name) continue;
        if (first.has("--help")) {
            std::cout << command.usage;
            return kExitOk;
        }
        if (!parse_for_command(words, command.options, context.args, error)) {
            return usage_error(context, std::string(command.name) + ": " + error);
        }
        if (context.args.value("--socket") &&
            command.options.value_options.count("--socket") == 0) {
            return usage_error(context, std::string(command.name) +
                                            " works on the database only (--db); --socket goes "
                                            "with status and raise-alarm");
        }
        return command.run(context);
    }
    return usage_error(context, "unknown command '" + first.command + "'");
}

}  // namespace
}  // namespace outpost::cli

int main(int argc, char** argv) {
    // No exception may escape: an operator script needs an exit code and a
    // message, not an abort.
    try {
        std::vector<std::string> words(argv + 1, argv + argc);
        return outpost::cli::run(words);
    } catch (const std::exception& error) {
        std::cerr << "outpostctl: internal error: " << error.what() << "\n";
    } catch (...) {
        std::cerr << "outpostctl: internal error\n";
    }
    return outpost::cli::kExitOperationalError;
}
