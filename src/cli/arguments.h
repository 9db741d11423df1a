// Command-line parsing for outpostctl: a command word, positionals, and
// "--name value" / "--flag" options checked against what the command accepts.
#ifndef OUTPOST_CLI_ARGUMENTS_H
#define OUTPOST_CLI_ARGUMENTS_H

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace outpost::cli {

// What one command accepts on top of the global options (--db, --quota-bytes,
// --socket, --json, --check, --help).
struct OptionSpec {
    std::set<std::string> value_options;  // "--limit" takes the next word
    std::set<std::string> flag_options;   // "--all-dead" stands alone
    size_t max_positionals = 0;
};

struct ParsedArguments {
    std::string command;                        // empty if none was given
    std::map<std::string, std::string> values;  // "--db" -> "/path"
    std::set<std::string> flags;                // "--json"
    std::vector<std::string> positionals;

    bool has(const std::string& flag) const { return flags.count(flag) != 0; }
    std::optional<std::string> value(const std::string& option) const;
};

// Options every command accepts.
const OptionSpec& global_options();

// First pass: finds the command word and the global options. `error` is set
// (and the result partial) when a global option lacks its value.
ParsedArguments parse_command_word(const std::vector<std::string>& words, std::string& error);

// Second pass, once the command is known: every option must be global or in
// `spec`. On failure returns false and sets `error` to a one-line reason.
bool parse_for_command(const std::vector<std::string>& words, const OptionSpec& spec,
                       ParsedArguments& parsed, std::string& error);

}  // namespace outpost::cli

#endif  // OUTPOST_CLI_ARGUMENTS_H
