// outpostctl list and show: read-only views of the outbox.
#include <cerrno>
#include <cstdlib>
#include <optional>
#include <string>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/output.h"
#include "store/outbox.h"

namespace outpost::cli {

namespace {

std::optional<store::OutboxState> parse_state(const std::string& name) {
    if (name == "pending") return store::OutboxState::kPending;
    if (name == "sent") return store::OutboxState::kSent;
    if (name == "dead") return store::OutboxState::kDead;
    return std::nullopt;
}

// A whole-word non-negative integer no larger than `max`.
std::optional<int64_t> parse_count(const std::string& text, int64_t max) {
    if (text.empty() || text[0] == '-' || text[0] == '+') return std::nullopt;
    char* end = nullptr;
    errno = 0;
    long long value = std::strtoll(text.c_str(), &end, 10);
    if (errno != 0 || *end != '\0' || value > max) return std::nullopt;
    return value;
}

// When the event was last replayed (0 if never); not part of OutboxRow.
int64_t replayed_at_ms(store::Db& reader, const std::string& event_id) {
    auto stmt = store::Stmt::prepare(
        reader, "SELECT coalesce(replayed_at_ms, 0) FROM outbox WHERE event_id = ?1");
    if (!stmt) return 0;
    stmt->bind(1, event_id);
    auto step = stmt->step("reading replay time");
    return step && *step == store::Stmt::Step::kRow ? stmt->column_int(0) : 0;
}

}  // namespace

int run_list(Context& context) {
    auto state = parse_state(context.args.value("--state").value_or("pending"));
    if (!state) return usage_error(context, "--state must be pending, sent or dead");
    auto limit = parse_count(context.args.value("--limit").value_or("100"), 1'000'000);
    if (!limit || *limit == 0) return usage_error(context, "--limit must be an integer from 1");
    auto after = parse_count(context.args.value("--after").value_or("0"), INT64_MAX);
    if (!after) return usage_error(context, "--after must be a non-negative row id");

    int exit_code = kExitOk;
    auto store = open_store(context, "", exit_code);
    if (!store) return exit_code;
    auto reader = store->core().open_reader();
    if (!reader) return operation_error(context, "opening a reader", reader.status());
    auto rows = store::list_events(*reader, *state, *after, static_cast<int>(*limit));
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
    auto reader = store->core().open_reader();
    if (!reader) return operation_error(context, "opening a reader", reader.status());
    auto row = store::find_event(*reader, event_id);
    if (!row) return operation_error(context, "event " + event_id, row.status());
    int64_t replayed_at = replayed_at_ms(*reader, event_id);

    if (context.json) {
        nlohmann::json document = row_to_json(*row, true);
        document["replayed_at_ms"] = replayed_at;
        print_json(context.out, document);
    } else {
        print_row_detail(context.out, *row, replayed_at);
    }
    return kExitOk;
}

}  // namespace outpost::cli
