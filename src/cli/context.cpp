#include "cli/context.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "cli/exit_codes.h"
#include "outpost/store_options.h"

namespace outpost::cli {

int usage_error(Context& context, const std::string& message) {
    context.err << "outpostctl: " << message << "\n"
                << "Try 'outpostctl --help' or 'outpostctl COMMAND --help'.\n";
    return kExitUsage;
}

int operation_error(Context& context, const std::string& what, const Status& status) {
    context.err << "outpostctl: " << what << ": " << status.to_string() << "\n";
    return status.code() == StatusCode::kNotFound ? kExitNotFound : kExitOperationalError;
}

namespace {

bool parse_quota(const std::string& text, uint64_t& quota) {
    if (text.empty() || text[0] == '-') return false;
    char* end = nullptr;
    errno = 0;
    unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    if (errno != 0 || *end != '\0' || value == 0) return false;
    quota = value;
    return true;
}

}  // namespace

std::unique_ptr<Store> open_store(Context& context, const std::string& create_with_gateway,
                                  int& exit_code) {
    auto path = context.args.value("--db");
    if (!path || path->empty()) {
        exit_code = usage_error(context, "missing --db PATH (the store's database file)");
        return nullptr;
    }
    StoreOptions options;
    options.gateway_id = create_with_gateway;  // empty: read from the database
    // PRAGMA quick_check reads the whole file: on a full gateway store that is
    // most of a second per command (more on an SD card). outpostd checks once
    // per boot; an operator asks for it with --check.
    options.check_on_open = context.args.has("--check");
    if (auto quota = context.args.value("--quota-bytes")) {
        if (!parse_quota(*quota, options.quota_bytes)) {
            exit_code = usage_error(context, "--quota-bytes must be a positive integer");
            return nullptr;
        }
    }
    struct stat info {};
    if (create_with_gateway.empty() && ::stat(path->c_str(), &info) != 0) {
        context.err << "outpostctl: cannot open database " << *path << ": " << std::strerror(errno)
                    << "\n";
        exit_code = kExitOperationalError;
        return nullptr;
    }
    auto store = Store::open(*path, options);
    if (!store) {
        exit_code = operation_error(context, "opening database " + *path, store.status());
        return nullptr;
    }
    return std::move(*store);
}

}  // namespace outpost::cli
