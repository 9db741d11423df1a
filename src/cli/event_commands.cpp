// outpostctl list and show: read-only views of the outbox.
#include <cerrno>
#include <cstdlib>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/output.h"
#include "outpost/store_admin.h"

namespace outpost::cli {

namespace {

// A whole-word non-negative integer no larger than `max`.
std::optional<int64_t> parse_count(const std::string& text, int64_t max) {
    if (text.empty() || text[0] == '-' || text[0] == '+') return std::nullopt;
    char* end = nullptr;
    errno = 0;
    long long value = std::strtoll(text.c_str(), &end, 10);
    if (errno != 0 || *end != '\0' || value > max) return std::nullopt;
    return value;
}

}  // namespace

int run_list(Context& context) {
    auto state = parse_event_state(context.args.value("--state").value_or("pending"));
    if (!state) return usage_error(context, "--state must be pending, sent or dead");
    auto limit = parse_count(context.args.value("--limit").value_or("100"), 1'000'000);
    if (!limit || *limit == 0) return usage_error(context, "--limit must be an integer from 1");
    auto after = parse_count(context.args.value("--after").value_or("0"), INT64_MAX);
    if (!after) return usage_error(context, "--after must be a non-negative row id");

    int exit_code = kExitOk;
    auto store = open_store(context, "", exit_code);
    if (!store) return exit_code;
    auto rows = StoreAdmin(*store).list_events(*state, *after, static_cast<int>(*limit));
    if (!rows) return operation_error(context, "listing events", rows.status());

    if (context.json) {
        nlohmann::json array = nlohmann::json::array();
        for (const auto& row : *rows) array.push_back(row_to_json(row, false));
        print_json(context.out, {{"events", array}});
    } else {
        print_row_table(context.out, *rows);
    }
    return kExitOk;
}

int run_show(Context& context) {
    if (context.args.positionals.size() != 1) return usage_error(context, "show needs EVENT_ID");
    const std::string& event_id = context.args.positionals.front();
    int exit_code = kExitOk;
    auto store = open_store(context, "", exit_code);
    if (!store) return exit_code;
    auto row = StoreAdmin(*store).find_event(event_id);
    if (!row) return operation_error(context, "event " + event_id, row.status());

    if (context.json) {
        print_json(context.out, row_to_json(*row, true));
    } else {
        print_row_detail(context.out, *row);
    }
    return kExitOk;
}

}  // namespace outpost::cli
