// Direct SQLite access for tests: inspect or tamper with a store's file from
// outside the library, the way an operator or a second process would.
#ifndef OUTPOST_TESTS_RAW_SQLITE_H
#define OUTPOST_TESTS_RAW_SQLITE_H

#include <sqlite3.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace outpost::testing {

class RawSqlite final {
public:
    explicit RawSqlite(const std::string& path, int flags = SQLITE_OPEN_READWRITE) {
        if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
            std::string message = sqlite3_errmsg(db_);
            sqlite3_close(db_);
            throw std::runtime_error("open " + path + ": " + message);
        }
        sqlite3_busy_timeout(db_, 5000);
    }
    ~RawSqlite() { sqlite3_close(db_); }
    RawSqlite(const RawSqlite&) = delete;
    RawSqlite& operator=(const RawSqlite&) = delete;

    void exec(const std::string& sql) {
        char* error = nullptr;
        if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK) {
            std::string message = error ? error : "?";
            sqlite3_free(error);
            throw std::runtime_error(sql + ": " + message);
        }
    }
    // First column of every row, as text (NULL as "").
    std::vector<std::string> column(const std::string& sql) {
        sqlite3_stmt* stmt = nullptr;
        if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) {
            throw std::runtime_error(sql + ": " + sqlite3_errmsg(db_));
        }
        std::vector<std::string> values;
        int rc;
        while ((rc = sqlite3_step(stmt)) == SQLITE_ROW) {
            const unsigned char* text = sqlite3_column_text(stmt, 0);
            values.emplace_back(text ? reinterpret_cast<const char*>(text) : "");
        }
        sqlite3_finalize(stmt);
        if (rc != SQLITE_DONE) throw std::runtime_error(sql + ": " + sqlite3_errmsg(db_));
        return values;
    }
    int64_t integer(const std::string& sql) {
        auto values = column(sql);
        if (values.empty()) throw std::runtime_error(sql + ": no row");
        return std::stoll(values.front());
    }
    std::string text(const std::string& sql) {
        auto values = column(sql);
        if (values.empty()) throw std::runtime_error(sql + ": no row");
        return values.front();
    }

private:
    sqlite3* db_ = nullptr;
};

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_RAW_SQLITE_H
