// outpostctl replay and purge: the operator's two ways out of DEAD.
#include <pwd.h>
#include <unistd.h>

#include <string>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/output.h"
#include "outpost/store_admin.h"

namespace outpost::cli {
namespace {

// Who asked for a replay when --actor does not say: the account running
// outpostctl, by name when it has one.
std::string default_actor() {
    const uid_t uid = getuid();
    const struct passwd* account = getpwuid(uid);
    const std::string name = account && account->pw_name ? account->pw_name : "an unnamed account";
    return "outpostctl by " + name + " (uid " + std::to_string(uid) + ")";
}

}  // namespace

int run_replay(Context& context) {
    bool all_dead = context.args.has("--all-dead");
    const auto& positionals = context.args.positionals;
    if (all_dead == !positionals.empty()) {
        return usage_error(context, "replay needs either EVENT_ID or --all-dead");
    }
    auto reason = context.args.value("--reason");
    if (!reason || reason->empty()) {
        return usage_error(context, "replay needs --reason TEXT (it is recorded with the event)");
    }
    const std::string actor = context.args.value("--actor").value_or(default_actor());
    if (actor.empty()) {
        return usage_error(context, "replay --actor needs a name (it is recorded with the event)");
    }
    int exit_code = kExitOk;
    auto store = open_store(context, "", exit_code);
    if (!store) return exit_code;

    if (all_dead) {
        auto count = StoreAdmin(*store).replay_dead(*reason, actor);
        if (!count) return operation_error(context, "replaying DEAD events", count.status());
        if (context.json) {
            print_json(context.out, {{"replayed", *count}});
        } else {
            context.out << "replayed " << *count << " dead event(s)\n";
        }
        return kExitOk;
    }
    const std::string& event_id = positionals.front();
    Status status = StoreAdmin(*store).replay_event(event_id, *reason, actor);
    if (!status) return operation_error(context, "replaying " + event_id, status);
    if (context.json) {
        print_json(context.out, {{"replayed", 1}, {"event_id", event_id}});
    } else {
        context.out << "replayed " << event_id << "\n";
    }
    return kExitOk;
}

int run_purge(Context& context) {
    if (!context.args.has("--dead")) {
        return usage_error(context, "purge needs --dead (only DEAD events can be purged)");
    }
    int exit_code = kExitOk;
    auto store = open_store(context, "", exit_code);
    if (!store) return exit_code;
    auto count = StoreAdmin(*store).purge_dead();
    if (!count) return operation_error(context, "purging DEAD events", count.status());
    if (context.json) {
        print_json(context.out, {{"purged", *count}});
    } else {
        context.out << "purged " << *count << " dead event(s)\n";
    }
    return kExitOk;
}

}  // namespace outpost::cli
