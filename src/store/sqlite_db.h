// Thin RAII wrappers over the SQLite C API and the one place where SQLite
// result codes become Outpost Status values.
#ifndef OUTPOST_STORE_SQLITE_DB_H
#define OUTPOST_STORE_SQLITE_DB_H

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>

#include "outpost/status.h"

namespace outpost::store {

class Stmt;

// Maps an SQLite result code to a Status whose message names `what` (the
// operation and object) and SQLite's own explanation.
Status sqlite_status(int rc, sqlite3* db, const std::string& what);

// An open database connection. Owns the sqlite3 handle.
class Db final {
public:
    Db() = default;
    ~Db();
    Db(Db&& other) noexcept;
    Db& operator=(Db&& other) noexcept;
    Db(const Db&) = delete;
    Db& operator=(const Db&) = delete;

    // What a connection is for; it sizes the connection's page cache
    // (sqlite_db.cpp, the one home of those sizes).
    enum class Role {
        kWriter,  // the store's one writing connection (and the benches' raw loop)
        kReader,  // a read-only connection: the publisher's, an admin read
        kStatus,  // the store's status connection (StoreCore::stats)
    };

    // Opens `path` with `flags` (SQLITE_OPEN_*) through `vfs` (empty: default),
    // with the page cache of `role`.
    static Result<Db> open(const std::string& path, int flags, const std::string& vfs,
                           Role role = Role::kWriter);

    // Runs one or more statements without parameters or results.
    Status exec(const std::string& sql, const std::string& what);
    // Runs a statement that returns one integer (a pragma, a count).
    Result<int64_t> query_int(const std::string& sql, const std::string& what);
    Result<std::string> query_text(const std::string& sql, const std::string& what);

    // Prepared statements on this connection, cached by SQL text for the
    // connection's life (close() finalizes them) and reset when handed out.
    // Reset a statement once its rows are read: an active statement pins a
    // read snapshot (on the writer, past COMMIT). Not thread-safe, like the
    // connection's other users: one thread at a time.
    Result<Stmt*> cached(const std::string& sql);
    // The same for a string literal (or any text that outlives the
    // connection unchanged): found by its address after the first call,
    // with no copy or hash of the text (a few thousand instructions per
    // alarm, bench/store_bench).
    Result<Stmt*> cached(const char* sql);

    sqlite3* handle() const { return db_; }
    bool is_open() const { return db_ != nullptr; }
    // Finalizes the cached statements and closes the connection.
    void close();

private:
    explicit Db(sqlite3* db) : db_(db) {}
    sqlite3* db_ = nullptr;
    std::unordered_map<std::string, std::unique_ptr<Stmt>> statements_;
    std::unordered_map<const char*, Stmt*> statements_by_address_;  // into statements_
};

// A prepared statement. Bind with 1-based indexes, then step(): kRow while
// rows come, kDone at the end, or an error Status.
class Stmt final {
public:
    Stmt() = default;
    ~Stmt();
    Stmt(Stmt&& other) noexcept;
    Stmt& operator=(Stmt&& other) noexcept;
    Stmt(const Stmt&) = delete;
    Stmt& operator=(const Stmt&) = delete;

    static Result<Stmt> prepare(const Db& db, const std::string& sql);

    Stmt& bind(int index, int64_t value);
    Stmt& bind(int index, double value);
    Stmt& bind(int index, const std::string& value);
    // Binds `value` without copying it: it must stay alive and unchanged
    // until the statement is reset (reset() also clears the bindings). For the per-alarm
    // inserts, where the copies (a malloc, a copy and a free per string,
    // twelve strings) cost more than the rest of the store's own work.
    Stmt& bind_static(int index, const std::string& value);
    Stmt& bind_static(int index, const std::string&& value) = delete;  // would dangle
    Stmt& bind_null(int index);

    enum class Step { kRow, kDone };
    // On error the statement is reset; `what` names the operation.
    Result<Step> step(const std::string& what);
    // Steps to completion, ignoring rows.
    Status run(const std::string& what);
    // Steps to completion, calling `on_row` with each row.
    Status for_each_row(const std::string& what, const std::function<void(const Stmt&)>& on_row);
    // Clears bindings and rewinds, ready for reuse.
    void reset();

    int64_t column_int(int index) const;
    double column_double(int index) const;
    bool column_is_null(int index) const;
    std::string column_text(int index) const;

    bool is_prepared() const { return stmt_ != nullptr; }

private:
    sqlite3_stmt* stmt_ = nullptr;
    sqlite3* db_ = nullptr;
};

}  // namespace outpost::store

#endif  // OUTPOST_STORE_SQLITE_DB_H
