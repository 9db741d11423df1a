// Proves that once the power is cut the machine stays off: every I/O through
// the VFS fails, so the workload stops at the cut, while closing connections
// and files still works so a test can tidy up.
#include <sqlite3.h>

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "proof/powercut_vfs.h"
#include "raw_file.h"
#include "temp_dir.h"

namespace outpost::testing {
namespace {

constexpr const char* kVfsName = "powercut-after-cut";

std::unique_ptr<PowercutVfs> make_vfs() {
    PowercutOptions options;
    options.forward_syncs = false;
    std::string error;
    auto vfs = PowercutVfs::create(kVfsName, options, &error);
    REQUIRE(vfs != nullptr);
    return vfs;
}

bool is_io_error(int rc) {
    return (rc & 0xff) == SQLITE_IOERR;
}

TEST_CASE("after the cut every file operation through the VFS fails with an I/O error") {
    TempDir dir(TempDir::Base::kPreferTmpfs);
    auto vfs = make_vfs();
    RawFile file(kVfsName, dir.file("f.db"), SQLITE_OPEN_MAIN_DB);
    REQUIRE(file.write(0, filled(1024, 'a')) == SQLITE_OK);
    REQUIRE(vfs->cut_now({CutMode::kKeepAllPending, 0}));

    ByteString read;
    long long size = 0;
    CHECK(file.read(0, 512, &read) == SQLITE_IOERR_READ);
    CHECK(file.write(0, filled(512, 'b')) == SQLITE_IOERR_WRITE);
    CHECK(file.sync() == SQLITE_IOERR_FSYNC);
    CHECK(file.truncate(0) == SQLITE_IOERR_TRUNCATE);
    CHECK(file.size(&size) == SQLITE_IOERR_FSTAT);
    CHECK(file.lock(SQLITE_LOCK_SHARED) == SQLITE_IOERR_LOCK);
    CHECK(file.close() == SQLITE_OK);

    RawFile another(kVfsName, dir.file("g.db"), SQLITE_OPEN_MAIN_DB);
    CHECK(is_io_error(another.open_rc()));
    sqlite3_vfs* raw = sqlite3_vfs_find(kVfsName);
    int exists = 0;
    CHECK(raw->xAccess(raw, dir.file("f.db").c_str(), SQLITE_ACCESS_EXISTS, &exists) ==
          SQLITE_IOERR_ACCESS);
    CHECK(raw->xDelete(raw, dir.file("f.db").c_str(), 0) == SQLITE_IOERR_DELETE);
    CHECK_FALSE(vfs->arm(CutTrigger::before_sync(1), {}));
    CHECK_FALSE(vfs->cut_now({}));
}

TEST_CASE("after the cut an open WAL connection can neither write nor read, and closes") {
    TempDir dir(TempDir::Base::kPreferTmpfs);
    auto vfs = make_vfs();
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open_v2(dir.file("t.db").c_str(), &db,
                            SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, kVfsName) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db,
                         "PRAGMA journal_mode=WAL; CREATE TABLE t(x);"
                         "INSERT INTO t VALUES(1);",
                         nullptr, nullptr, nullptr) == SQLITE_OK);
    REQUIRE(vfs->cut_now({CutMode::kDropAllPending, 0}));

    const int insert_rc = sqlite3_exec(db, "INSERT INTO t VALUES(2)", nullptr, nullptr, nullptr);
    CHECK(is_io_error(insert_rc));
    const int select_rc = sqlite3_exec(db, "SELECT count(*) FROM t", nullptr, nullptr, nullptr);
    CHECK(is_io_error(select_rc));
    CHECK(sqlite3_close(db) == SQLITE_OK);

    sqlite3* again = nullptr;
    const int open_rc =
        sqlite3_open_v2(dir.file("t.db").c_str(), &again, SQLITE_OPEN_READWRITE, kVfsName);
    int query_rc = SQLITE_OK;
    if (open_rc == SQLITE_OK) {
        query_rc = sqlite3_exec(again, "SELECT count(*) FROM t", nullptr, nullptr, nullptr);
    }
    CHECK((open_rc != SQLITE_OK || query_rc != SQLITE_OK));
    sqlite3_close(again);
}

TEST_CASE("images after the cut hold no -shm file, only the database and its WAL") {
    TempDir dir(TempDir::Base::kPreferTmpfs);
    TempDir images(TempDir::Base::kPreferTmpfs);
    auto vfs = make_vfs();
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open_v2(dir.file("t.db").c_str(), &db,
                            SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, kVfsName) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db, "PRAGMA journal_mode=WAL; CREATE TABLE t(x);", nullptr, nullptr,
                         nullptr) == SQLITE_OK);
    REQUIRE(vfs->cut_now({CutMode::kKeepAllPending, 0}));
    sqlite3_close(db);
    CHECK(vfs->image_names() == std::vector<std::string>{"t.db", "t.db-wal"});
    std::string error;
    REQUIRE(vfs->write_images(images.path(), &error));
    CHECK(read_host_file(images.file("t.db-shm")).empty());
    CHECK_FALSE(vfs->write_images(images.path(), &error));  // never over an existing file
}

}  // namespace
}  // namespace outpost::testing
