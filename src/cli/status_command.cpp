// outpostctl status: the store's figures and who holds the publisher lease
// (--db), and/or the live status of a running outpostd (--socket).
#include <string>

#include "cli/commands.h"
#include "cli/daemon_client.h"
#include "cli/exit_codes.h"
#include "cli/output.h"
#include "ingest/status_document.h"
#include "outpost/store_admin.h"

namespace outpost::cli {

namespace {

struct StoreStatus {
    std::string gateway_id;
    StoreStats stats;
    LeaseRecord lease;
};

// "3 h 25 min", "2 min 5 s", "40 s": a lower bound counted on boot clocks
// across reboots (StoreStats::oldest_pending_age_ms).
std::string format_age(int64_t ms) {
    const int64_t seconds = ms / 1000;
    if (seconds >= 3600) {
        return std::to_string(seconds / 3600) + " h " + std::to_string(seconds % 3600 / 60) +
               " min";
    }
    if (seconds >= 60)
        return std::to_string(seconds / 60) + " min " + std::to_string(seconds % 60) + " s";
    return std::to_string(seconds) + " s";
}

// Fills `status` from the database named by --db; returns an exit code.
int read_store_status(Context& context, StoreStatus& status) {
    int exit_code = kExitOk;
    auto store = open_store(context, "", exit_code);
    if (!store) return exit_code;
    auto stats = store->stats();
    if (!stats) return operation_error(context, "reading store figures", stats.status());
    auto lease = StoreAdmin(*store).lease();
    if (!lease) return operation_error(context, "reading the lease", lease.status());
    status = {store->gateway_id(), *stats, *lease};
    return kExitOk;
}

// The same top-level shape as outpostd's status document: "gateway_id",
// "store" (the figures every status document shares) and "lease".
nlohmann::json store_status_json(const StoreStatus& status) {
    const LeaseRecord& lease = status.lease;
    return {
        {"gateway_id", status.gateway_id},
        {"store", ingest::store_stats_json(status.stats)},
        {"lease", {{"holder", lease.holder}, {"epoch", lease.epoch}, {"boot_id", lease.boot_id}}}};
}

void print_store_status(std::ostream& out, const StoreStatus& status) {
    const StoreStats& stats = status.stats;
    double percent = stats.quota_bytes == 0 ? 0.0
                                            : 100.0 * static_cast<double>(stats.database_bytes) /
                                                  static_cast<double>(stats.quota_bytes);
    out << "gateway:        " << status.gateway_id << "\n"
        << "pending:        " << stats.pending << "\n"
        << "sent:           " << stats.sent << " (confirmed " << stats.confirmed
        << ", awaiting receipt " << stats.sent - stats.confirmed << ")\n"
        << "dead:           " << stats.dead << "\n"
        << "oldest pending: "
        << (stats.oldest_pending_id == 0
                ? std::string("-")
                : std::to_string(stats.oldest_pending_id) + ", waiting at least " +
                      format_age(stats.oldest_pending_age_ms))
        << "\n"
        << "database:       " << stats.database_bytes << " of " << stats.quota_bytes << " bytes ("
        << static_cast<int>(percent + 0.5) << "%)\n"
        << "lease:          "
        << (status.lease.holder.empty() ? std::string("none") : status.lease.holder) << ", epoch "
        << status.lease.epoch << "\n";
}

}  // namespace

int run_status(Context& context) {
    const bool from_daemon = context.args.value("--socket").has_value();
    const bool from_store = context.args.value("--db").has_value();
    StoreStatus store_status;
    if (from_store || !from_daemon) {
        // Without --socket this is the store-only status (and its --db error).
        int exit_code = read_store_status(context, store_status);
        if (exit_code != kExitOk) return exit_code;
    }
    if (!from_daemon) {
        if (context.json) {
            print_json(context.out, store_status_json(store_status));
        } else {
            print_store_status(context.out, store_status);
        }
        return kExitOk;
    }
    int exit_code = kExitOk;
    auto answer = ask_daemon(context, {{"op", "status"}}, "the status request", false, exit_code);
    if (!answer) return exit_code;
    // Whatever the daemon reports, rendered without knowing its fields.
    nlohmann::json daemon = answer->value("status", nlohmann::json::object());
    if (context.json) {
        print_json(context.out, from_store
                                    ? nlohmann::json{{"daemon", daemon},
                                                     {"database", store_status_json(store_status)}}
                                    : daemon);
        return kExitOk;
    }
    if (!from_store) {
        print_tree(context.out, daemon);
        return kExitOk;
    }
    context.out << "outpostd:\n";
    print_tree(context.out, daemon, 1);
    context.out << "\nstore (" << *context.args.value("--db") << "):\n";
    print_store_status(context.out, store_status);
    return kExitOk;
}

}  // namespace outpost::cli
