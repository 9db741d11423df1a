// Store::transact: the application's own writes plus events, atomically.
#include <cstring>
#include <vector>

#include "store/envelope.h"
#include "store/record.h"
#include "store/store_core.h"
#include "store/transaction_impl.h"

namespace outpost::store {
namespace {

// No allocation: this runs inside SQLite's authorizer callback, where an
// exception must never be thrown (write_batch.cpp, I7).
bool is_internal_table(const char* name) {
    if (name == nullptr) return false;
    for (const char* table : {"outbox", "alarm_record", "lease", "device_seq", "meta"}) {
        if (std::strcmp(name, table) == 0) return true;
    }
    return false;
}

// Application SQL may read our tables but never change them, and may not
// end or nest the transaction it runs in.
int authorize(void*, int action, const char* arg1, const char*, const char*, const char*) noexcept {
    switch (action) {
        case SQLITE_INSERT:
        case SQLITE_UPDATE:
        case SQLITE_DELETE:
        case SQLITE_DROP_TABLE:
        case SQLITE_ALTER_TABLE:
        case SQLITE_CREATE_INDEX:
        case SQLITE_DROP_INDEX:
        case SQLITE_CREATE_TRIGGER:
            return is_internal_table(arg1) ? SQLITE_DENY : SQLITE_OK;
        case SQLITE_TRANSACTION:
        case SQLITE_SAVEPOINT:
        case SQLITE_ATTACH:
        case SQLITE_DETACH:
        case SQLITE_PRAGMA:
            return SQLITE_DENY;
        default:
            return SQLITE_OK;
    }
}

}  // namespace

TransactionImpl::TransactionImpl(BatchContext& context) : context_(context) {}

Status TransactionImpl::execute(const std::string& sql, const std::vector<SqlValue>& params) {
    sqlite3* db = context_.db().handle();
    sqlite3_set_authorizer(db, &authorize, nullptr);
    auto stmt = Stmt::prepare(context_.db(), sql);
    sqlite3_set_authorizer(db, nullptr, nullptr);
    if (!stmt) {
        return Status::error(StatusCode::kInvalidArgument,
                             "application SQL refused: " + stmt.status().message());
    }
    for (size_t i = 0; i < params.size(); ++i) {
        const int index = static_cast<int>(i + 1);
        const SqlValue& value = params[i];
        if (std::holds_alternative<std::nullptr_t>(value)) {
            stmt->bind_null(index);
        } else if (const auto* integer = std::get_if<int64_t>(&value)) {
            stmt->bind(index, *integer);
        } else if (const auto* real = std::get_if<double>(&value)) {
            stmt->bind(index, *real);
        } else {
            stmt->bind(index, std::get<std::string>(value));
        }
    }
    return stmt->run("application SQL");
}

Result<RecordedEvent> TransactionImpl::enqueue(const Event& event) {
    Status valid = validate_event(event);
    if (!valid) return valid;
    RecordedEvent recorded;
    Status status = insert_event(context_, event, &recorded);
    if (!status) return status;
    recorded_.push_back(recorded);
    return recorded;
}

}  // namespace outpost::store
