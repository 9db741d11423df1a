// The command line every Outpost service shares (outpost-bridge, outpostd):
//   PROGRAM --config FILE [--check-config] | --help | --version
#ifndef OUTPOST_COMMON_SERVICE_ARGUMENTS_H
#define OUTPOST_COMMON_SERVICE_ARGUMENTS_H

#include <optional>
#include <string>

namespace outpost {

struct ServiceArguments {
    std::string config_path;  // --config FILE or --config=FILE
    bool check_only = false;  // --check-config: validate, print a summary, exit
};

// Parses argv. Returns nullopt when the process should exit at once with
// *exit_code: 0 after printing `help` (--help, -h) or "<program> <version>"
// (--version, only when `version` is not null); 2 after printing a usage
// error on stderr ("<program>: unknown argument '--x' (try --help)").
std::optional<ServiceArguments> parse_service_arguments(int argc, char** argv, const char* program,
                                                        const char* help, const char* version,
                                                        int* exit_code);

}  // namespace outpost

#endif  // OUTPOST_COMMON_SERVICE_ARGUMENTS_H
