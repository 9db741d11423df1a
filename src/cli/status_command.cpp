// outpostctl status: the store's figures and who holds the publisher lease.
#include <string>

#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/output.h"
#include "store/outbox.h"

namespace outpost::cli {

namespace {

struct LeaseInfo {
    int64_t epoch = 0;
    std::string holder;
    std::string boot_id;
};

Result<LeaseInfo> read_lease(store::Db& reader) {
    auto stmt = store::Stmt::prepare(
        reader,
        "SELECT epoch, coalesce(holder, ''), coalesce(boot_id, '') FROM lease WHERE id = 1");
    if (!stmt) return stmt.status();
    auto step = stmt->step("reading the lease");
    if (!step) return step.status();
    LeaseInfo lease;
    if (*step == store::Stmt::Step::kRow) {
        lease.epoch = stmt->column_int(0);
        lease.holder = stmt->column_text(1);
        lease.boot_id = stmt->column_text(2);
    }
    return lease;
}

}  // namespace

int run_status(Context& context) {
    int exit_code = kExitOk;
    auto store = open_store(context, "", exit_code);
    if (!store) return exit_code;
    auto stats = store->stats();
    if (!stats) return operation_error(context, "reading store figures", stats.status());
    auto reader = store->core().open_reader();
    if (!reader) return operation_error(context, "opening a reader", reader.status());
    auto lease = read_lease(*reader);
    if (!lease) return operation_error(context, "reading the lease", lease.status());

    if (context.json) {
        print_json(
            context.out,
            {{"gateway_id", store->core().gateway_id()},
             {"pending", stats->pending},
             {"sent", stats->sent},
             {"dead", stats->dead},
             {"oldest_pending_id", stats->oldest_pending_id},
             {"database_bytes", stats->database_bytes},
             {"quota_bytes", stats->quota_bytes},
             {"lease",
              {{"holder", lease->holder}, {"epoch", lease->epoch}, {"boot_id", lease->boot_id}}}});
        return kExitOk;
    }
    double percent = stats->quota_bytes == 0 ? 0.0
                                             : 100.0 * static_cast<double>(stats->database_bytes) /
                                                   static_cast<double>(stats->quota_bytes);
    context.out << "gateway:        " << store->core().gateway_id() << "\n"
                << "pending:        " << stats->pending << "\n"
                << "sent:           " << stats->sent << "\n"
                << "dead:           " << stats->dead << "\n"
                << "oldest pending: "
                << (stats->oldest_pending_id == 0 ? std::string("-")
                                                  : std::to_string(stats->oldest_pending_id))
                << "\n"
                << "database:       " << stats->database_bytes << " of " << stats->quota_bytes
                << " bytes (" << static_cast<int>(percent + 0.5) << "%)\n"
                << "lease:          "
                << (lease->holder.empty() ? std::string("none") : lease->holder) << ", epoch "
                << lease->epoch << "\n";
    return kExitOk;
}

}  // namespace outpost::cli
