#include "proof/vm/guest/naive.h"

#include <sqlite3.h>
#include <sys/stat.h>

#include <chrono>
#include <string>

#include "proof/vm/guest/extents.h"
#include "proof/vm/guest/pace.h"

namespace outpost::torture::vm::guest {
namespace {

using Clock = std::chrono::steady_clock;

// An alarm's business row, about the size of alarm_record's.
constexpr const char* kSchema =
    "CREATE TABLE IF NOT EXISTS alarm ("
    " id INTEGER PRIMARY KEY, event_id TEXT NOT NULL, device_id TEXT NOT NULL,"
    " alarm_type TEXT NOT NULL, severity TEXT NOT NULL, value REAL, unit TEXT,"
    " text TEXT, occurred_at_ms INTEGER NOT NULL)";
constexpr const char* kInsert =
    "INSERT INTO alarm (event_id, device_id, alarm_type, severity, value, unit, text,"
    " occurred_at_ms) VALUES (?1, ?2, 'overpressure', 'critical', ?3, 'bar', ?4, ?5)";

bool exec(sqlite3* db, const std::string& sql, std::string* error) {
    char* message = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message) == SQLITE_OK) return true;
    *error = sql + ": " + (message != nullptr ? message : sqlite3_errmsg(db));
    sqlite3_free(message);
    return false;
}

bool insert_rows(sqlite3* db, const NaiveOptions& options, std::string* error) {
    sqlite3_stmt* insert = nullptr;
    if (sqlite3_prepare_v2(db, kInsert, -1, &insert, nullptr) != SQLITE_OK) {
        *error = sqlite3_errmsg(db);
        return false;
    }
    const Clock::time_point start = Clock::now();
    bool ok = true;
    for (int row = 0; ok && row < options.rows; ++row) {
        wait_for_turn(start, row, options.rate);
        // Autocommit: one durable transaction per row.
        const std::string event_id = "0190b6a0-0000-7000-8000-" + std::to_string(100000000000 + row);
        const std::string text = "naive anchor row " + std::to_string(row);
        sqlite3_bind_text(insert, 1, event_id.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, 2, ("pump-" + std::to_string(row % 4)).c_str(), -1,
                          SQLITE_TRANSIENT);
        sqlite3_bind_double(insert, 3, 4.5 + row % 10);
        sqlite3_bind_text(insert, 4, text.c_str(), -1, SQLITE_TRANSIENT);
        sqlite3_bind_int64(insert, 5, 1700000000000 + row);
        ok = sqlite3_step(insert) == SQLITE_DONE;
        if (!ok) *error = sqlite3_errmsg(db);
        sqlite3_reset(insert);
    }
    sqlite3_finalize(insert);
    return ok;
}

}  // namespace

int run_naive(const NaiveOptions& options, const Channel& channel) {
    ::mkdir(options.dir.c_str(), 0755);
    const std::string path = options.dir + "/naive.db";
    sqlite3* db = nullptr;
    std::string error;
    bool ok = sqlite3_open(path.c_str(), &db) == SQLITE_OK;
    if (!ok) error = "cannot open " + path;
    const std::string journal = options.mode == "wal" ? "WAL" : "DELETE";
    ok = ok && exec(db, "PRAGMA journal_mode=" + journal, &error) &&
         exec(db, "PRAGMA synchronous=FULL", &error) && exec(db, kSchema, &error) &&
         insert_rows(db, options, &error);
    if (ok) {
        channel.line("N acknowledged " + std::to_string(options.rows));
        report_extents("db", path, channel);
        report_extents("wal", path + "-wal", channel);
    }
    sqlite3_close(db);  // WAL: the last connection checkpoints
    channel.line(ok ? "vm naive ok" : "vm error naive: " + error);
    return ok ? 0 : 1;
}

}  // namespace outpost::torture::vm::guest
