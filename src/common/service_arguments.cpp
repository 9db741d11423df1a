#include "common/service_arguments.h"

#include <cstdio>
#include <cstring>

namespace outpost {

std::optional<ServiceArguments> parse_service_arguments(int argc, char** argv, const char* program,
                                                        const char* help, const char* version,
                                                        int* exit_code) {
    ServiceArguments arguments;
    for (int i = 1; i < argc; ++i) {
        const std::string argument = argv[i];
        if (argument == "--help" || argument == "-h") {
            std::fputs(help, stdout);
            *exit_code = 0;
            return std::nullopt;
        } else if (argument == "--version" && version != nullptr) {
            std::printf("%s %s\n", program, version);
            *exit_code = 0;
            return std::nullopt;
        } else if (argument == "--check-config") {
            arguments.check_only = true;
        } else if (argument == "--config" && i + 1 < argc) {
            arguments.config_path = argv[++i];
        } else if (argument.rfind("--config=", 0) == 0) {
            arguments.config_path = argument.substr(std::strlen("--config="));
        } else {
            std::fprintf(stderr, "%s: unknown argument '%s' (try --help)\n", program,
                         argument.c_str());
            *exit_code = 2;
            return std::nullopt;
        }
    }
    if (arguments.config_path.empty()) {
        std::fprintf(stderr, "%s: --config FILE is required (try --help)\n", program);
        *exit_code = 2;
        return std::nullopt;
    }
    return arguments;
}

}  // namespace outpost
