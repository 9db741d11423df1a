#include "store/sqlite_db.h"

#include <utility>

namespace outpost::store {
namespace {

// Page cache per connection, in KiB. SQLite's default is 2,000 KiB, and a
// store at its 64 MiB quota fills it (the open-time quick_check, the
// publisher's scans), so outpostd's writer and reader connections held about
// 4 MB of heap for it. 256 KiB (64 pages) holds the upper b-tree pages of a
// full store plus the leaves being appended to; a miss is a pread() served
// from the kernel's page cache, which the kernel can reclaim and we cannot.
// bench/footprint's fill of a 64 MiB store ran at 5,800-7,000 alarms/s with
// 2,000 or 512 KiB (run-to-run spread); 256 instead of 512 KiB took about
// 250 KiB off outpostd's heap with no change in its CPU per alarm while a
// full store drained (docs/performance.md, "Footprint").
constexpr int kWriterPageCacheKiB = 256;
// A reader walks forward through the outbox (the publisher's fetches from
// its cursor, a status read's short tail past the summary row): it needs
// the few interior pages on its path and the leaf it reads, not the pages
// it has passed. With 512 KiB, the publisher's reader filled all of it
// while a full store drained (bench/footprint).
constexpr int kReaderPageCacheKiB = 128;
// The status connection stays open for the store's life and reads a few
// pages per call (the summary row, the short tail past it, the boot log);
// SQLite drops its cached pages whenever another connection has written, so
// a larger cache would only hold pages until the next reset.
constexpr int kStatusPageCacheKiB = 64;

int page_cache_kib(Db::Role role) {
    switch (role) {
        case Db::Role::kWriter:
            return kWriterPageCacheKiB;
        case Db::Role::kReader:
            return kReaderPageCacheKiB;
        case Db::Role::kStatus:
            return kStatusPageCacheKiB;
    }
    return kReaderPageCacheKiB;
}

}  // namespace

Status sqlite_status(int rc, sqlite3* db, const std::string& what) {
    if (rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW) return Status::ok();
    std::string detail = sqlite3_errstr(rc);
    if (db != nullptr && sqlite3_extended_errcode(db) == rc) detail = sqlite3_errmsg(db);
    std::string message = what + ": " + detail + " (sqlite " + std::to_string(rc) + ")";
    switch (rc & 0xFF) {
        case SQLITE_FULL:
            return Status::error(StatusCode::kDiskFull,
                                 message + "; free space on the device or lower the quota");
        case SQLITE_IOERR:
        case SQLITE_CANTOPEN:
        case SQLITE_READONLY:
        case SQLITE_PROTOCOL:
            return Status::error(StatusCode::kIoError, message);
        case SQLITE_BUSY:
        case SQLITE_LOCKED:
            return Status::error(StatusCode::kBusy,
                                 message + "; another process holds the database lock");
        case SQLITE_CORRUPT:
        case SQLITE_NOTADB:
            return Status::error(StatusCode::kCorruption, message);
        case SQLITE_CONSTRAINT:
        case SQLITE_ERROR:
        case SQLITE_MISMATCH:
        case SQLITE_RANGE:
        case SQLITE_TOOBIG:
        case SQLITE_AUTH:
            return Status::error(StatusCode::kInvalidArgument, message);
        default:
            return Status::error(StatusCode::kInternal, message);
    }
}

Db::~Db() { close(); }

Db::Db(Db&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      statements_(std::move(other.statements_)),
      statements_by_address_(std::move(other.statements_by_address_)) {}

Db& Db::operator=(Db&& other) noexcept {
    if (this != &other) {
        close();
        db_ = std::exchange(other.db_, nullptr);
        statements_ = std::move(other.statements_);
        statements_by_address_ = std::move(other.statements_by_address_);
    }
    return *this;
}

Result<Db> Db::open(const std::string& path, int flags, const std::string& vfs, Role role) {
    sqlite3* raw = nullptr;
    // NOFOLLOW: a symbolic link planted at the path must not redirect the
    // store onto another file. SQLite refuses a link in any component of
    // the path, not only the last.
    int rc = sqlite3_open_v2(path.c_str(), &raw,
                             flags | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_NOFOLLOW,
                             vfs.empty() ? nullptr : vfs.c_str());
    Db db(raw);
    if (rc != SQLITE_OK && raw != nullptr &&
        sqlite3_extended_errcode(raw) == SQLITE_CANTOPEN_SYMLINK) {
        return Status::error(StatusCode::kInvalidArgument,
                             "opening " + path +
                                 ": the path goes through a symbolic link, which the store never "
                                 "follows (a planted link could redirect it onto another file); "
                                 "give the path without links (realpath " + path + ")");
    }
    if (rc != SQLITE_OK) return sqlite_status(rc, raw, "opening " + path);
    sqlite3_extended_result_codes(raw, 1);
    const int cache_kib = page_cache_kib(role);
    Status cache = db.exec("PRAGMA cache_size=-" + std::to_string(cache_kib),
                           "setting the page cache size of " + path);
    if (!cache) return cache;
    return db;
}

Result<Stmt*> Db::cached(const std::string& sql) {
    auto it = statements_.find(sql);
    if (it != statements_.end()) {
        it->second->reset();
        return it->second.get();
    }
    auto stmt = Stmt::prepare(*this, sql);
    if (!stmt) return stmt.status();
    auto owned = std::make_unique<Stmt>(std::move(*stmt));
    Stmt* raw = owned.get();
    statements_.emplace(sql, std::move(owned));
    return raw;
}

Result<Stmt*> Db::cached(const char* sql) {
    auto it = statements_by_address_.find(sql);
    if (it != statements_by_address_.end()) {
        it->second->reset();
        return it->second;
    }
    auto stmt = cached(std::string(sql));
    if (stmt) statements_by_address_.emplace(sql, *stmt);
    return stmt;
}

void Db::close() {
    statements_by_address_.clear();
    statements_.clear();  // finalized before the handle closes
    if (db_ == nullptr) return;
    // close_v2 defers the close until stray statements are finalized, so a
    // leaked statement cannot keep the handle half-alive.
    sqlite3_close_v2(db_);
    db_ = nullptr;
}

Status Db::exec(const std::string& sql, const std::string& what) {
    char* error = nullptr;
    int rc = sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error);
    sqlite3_free(error);
    return sqlite_status(rc, db_, what);
}

namespace {

// Runs `sql` and hands its first row to `read`; an error if there is none.
template <typename T, typename Read>
Result<T> query_one(const Db& db, const std::string& sql, const std::string& what, Read read) {
    auto stmt = Stmt::prepare(db, sql);
    if (!stmt) return stmt.status().with_context(what);
    auto step = stmt->step(what);
    if (!step) return step.status();
    if (*step != Stmt::Step::kRow) {
        return Status::error(StatusCode::kInternal, what + ": no row returned");
    }
    return read(*stmt);
}

}  // namespace

Result<int64_t> Db::query_int(const std::string& sql, const std::string& what) {
    return query_one<int64_t>(*this, sql, what, [](const Stmt& stmt) { return stmt.column_int(0); });
}

Result<std::string> Db::query_text(const std::string& sql, const std::string& what) {
    return query_one<std::string>(*this, sql, what,
                                  [](const Stmt& stmt) { return stmt.column_text(0); });
}

Stmt::~Stmt() { sqlite3_finalize(stmt_); }

Stmt::Stmt(Stmt&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)), db_(std::exchange(other.db_, nullptr)) {}

Stmt& Stmt::operator=(Stmt&& other) noexcept {
    if (this != &other) {
        sqlite3_finalize(stmt_);
        stmt_ = std::exchange(other.stmt_, nullptr);
        db_ = std::exchange(other.db_, nullptr);
    }
    return *this;
}

Result<Stmt> Stmt::prepare(const Db& db, const std::string& sql) {
    Stmt stmt;
    stmt.db_ = db.handle();
    int rc = sqlite3_prepare_v2(db.handle(), sql.c_str(), static_cast<int>(sql.size()),
                                &stmt.stmt_, nullptr);
    if (rc != SQLITE_OK) return sqlite_status(rc, db.handle(), "preparing: " + sql);
    if (stmt.stmt_ == nullptr) {
        return Status::error(StatusCode::kInvalidArgument, "empty SQL statement");
    }
    return stmt;
}

Stmt& Stmt::bind(int index, int64_t value) {
    sqlite3_bind_int64(stmt_, index, value);
    return *this;
}

Stmt& Stmt::bind(int index, double value) {
    sqlite3_bind_double(stmt_, index, value);
    return *this;
}

Stmt& Stmt::bind(int index, const std::string& value) {
    sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                      SQLITE_TRANSIENT);
    return *this;
}

Stmt& Stmt::bind_static(int index, const std::string& value) {
    sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_STATIC);
    return *this;
}

Stmt& Stmt::bind_null(int index) {
    sqlite3_bind_null(stmt_, index);
    return *this;
}

Result<Stmt::Step> Stmt::step(const std::string& what) {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return Step::kRow;
    if (rc == SQLITE_DONE) return Step::kDone;
    Status status = sqlite_status(rc, db_, what);
    sqlite3_reset(stmt_);
    return status;
}

Status Stmt::run(const std::string& what) {
    for (;;) {
        auto step = this->step(what);
        if (!step) return step.status();
        if (*step == Step::kDone) return Status::ok();
    }
}

Status Stmt::for_each_row(const std::string& what, const std::function<void(const Stmt&)>& on_row) {
    for (;;) {
        auto step = this->step(what);
        if (!step) return step.status();
        if (*step == Step::kDone) return Status::ok();
        on_row(*this);
    }
}

void Stmt::reset() {
    sqlite3_reset(stmt_);
    // Skipped when there is nothing to clear (BEGIN, COMMIT, PRAGMAs): it
    // takes the connection's mutex even then.
    if (sqlite3_bind_parameter_count(stmt_) > 0) sqlite3_clear_bindings(stmt_);
}

int64_t Stmt::column_int(int index) const { return sqlite3_column_int64(stmt_, index); }

double Stmt::column_double(int index) const { return sqlite3_column_double(stmt_, index); }

bool Stmt::column_is_null(int index) const {
    return sqlite3_column_type(stmt_, index) == SQLITE_NULL;
}

std::string Stmt::column_text(int index) const {
    const unsigned char* text = sqlite3_column_text(stmt_, index);
    if (text == nullptr) return std::string();
    return std::string(reinterpret_cast<const char*>(text),
                       static_cast<size_t>(sqlite3_column_bytes(stmt_, index)));
}

}  // namespace outpost::store
