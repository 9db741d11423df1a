// outpost::Store: the public facade over StoreCore. Nothing throws out of it
// (common/api_guard.h).
#include "outpost/store.h"

#include "common/api_guard.h"
#include "store/envelope.h"
#include "store/purge.h"
#include "store/record.h"
#include "store/store_core.h"
#include "store/transaction_impl.h"

namespace outpost {

Store::Store(std::unique_ptr<store::StoreCore> core) : core_(std::move(core)) {}

Store::~Store() {
    close().ignore_error("a destructor has no one to tell; call close() to hear the outcome");
}

Result<std::unique_ptr<Store>> Store::open(const std::string& path, const StoreOptions& options) {
    return guard_api("Store::open", [&]() -> Result<std::unique_ptr<Store>> {
        auto core = store::StoreCore::open(path, options);
        if (!core) return core.status();
        return std::unique_ptr<Store>(new Store(std::move(*core)));
    });
}

Result<RecordedEvent> Store::record_alarm(const Alarm& alarm) {
    return guard_api("Store::record_alarm", [&]() -> Result<RecordedEvent> {
        Status valid = store::validate_alarm(alarm);
        if (!valid) return valid;
        // Size check before queueing: ops on the fast path share a transaction,
        // and a late refusal would fail the whole batch.
        Status fits = store::check_alarm_size(*core_, alarm);
        if (!fits) return fits;

        RecordedEvent recorded;
        store::WriteOp op;
        op.growth_bytes = store::estimated_alarm_bytes(alarm);
        op.apply = [&](store::BatchContext& context) {
            return store::insert_alarm(context, alarm, &recorded);
        };
        Status status = core_->submit(op);
        if (!status) return status;
        // Moved into the Result, not copied (a local is returned as an
        // rvalue): nothing may fail from here on, the row is durable.
        return recorded;
    });
}

Result<std::vector<RecordedEvent>> Store::transact(
    const std::function<Status(Transaction&)>& body) {
    return guard_api("Store::transact", [&]() -> Result<std::vector<RecordedEvent>> {
        std::vector<RecordedEvent> recorded;
        store::WriteOp op;
        op.isolated = true;
        op.growth_bytes = 4096;  // unknown in advance: at least a page
        op.apply = [&](store::BatchContext& context) {
            store::TransactionImpl transaction(context);
            Status status = body(transaction);
            if (status) recorded = transaction.recorded();
            return status;
        };
        Status status = core_->submit(op);
        if (!status) return status;
        // Moved into the Result, not copied (a local is returned as an
        // rvalue): nothing may fail from here on, the row is durable.
        return recorded;
    });
}

Result<int64_t> Store::purge_expired() {
    return guard_api("Store::purge_expired", [&]() -> Result<int64_t> {
        int64_t purged = 0;
        store::WriteOp op;
        // Undone by a power cut, the rows are purged again (write_batch.cpp, I8).
        op.durability = store::Durability::kLazy;
        op.apply = [&](store::BatchContext& context) {
            store::PurgeRule rule;
            rule.boot_id = core_->boot_id();
            rule.uptime_ms = context.uptime_ms();
            rule.retention = core_->options().sent_retention;
            rule.confirmed_only = core_->purge_confirmed_only();
            auto result = store::purge_sent_rows(*core_, rule, core_->options().purge_batch_rows,
                                                 context.change());
            if (!result) return result.status();
            purged = *result;
            return Status::ok();
        };
        Status status = core_->submit(op);
        if (!status) return status;
        core_->count_purged(purged);
        return purged;
    });
}

Result<StoreStats> Store::stats() {
    return guard_api("Store::stats", [&] { return core_->stats(); });
}
const OpenReport& Store::open_report() const { return core_->report(); }
const std::string& Store::path() const { return core_->path(); }
const StoreOptions& Store::options() const { return core_->options(); }
const std::string& Store::gateway_id() const { return core_->gateway_id(); }
Status Store::close() {
    return guard_api("Store::close", [&] { return core_ ? core_->close() : Status::ok(); });
}

}  // namespace outpost
