// Store::stats() reads through one status connection kept for the store's
// life (src/store/stats.cpp): status reads open no connection after the
// first, leave no read transaction behind them (a checkpoint passes every
// frame), and close() lets go of the file and still removes the WAL.
#include <dirent.h>
#include <limits.h>
#include <sqlite3.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "outpost/store.h"
#include "raw_sqlite.h"
#include "store_fixture.h"
#include "temp_dir.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

// The default VFS with every main-database open counted: each connection
// to a database file opens it once.
std::atomic<int> main_db_opens{0};
sqlite3_vfs counting_vfs;
sqlite3_vfs* default_vfs = nullptr;

int counting_open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* file, int flags,
                  int* out_flags) {
    if ((flags & SQLITE_OPEN_MAIN_DB) != 0) ++main_db_opens;
    return default_vfs->xOpen(default_vfs, name, file, flags, out_flags);
}

const char* register_counting_vfs() {
    static const char* name = [] {
        default_vfs = sqlite3_vfs_find(nullptr);
        counting_vfs = *default_vfs;
        counting_vfs.zName = "outpost-test-counting";
        counting_vfs.xOpen = counting_open;
        sqlite3_vfs_register(&counting_vfs, 0);
        return counting_vfs.zName;
    }();
    return name;
}

// How many of this process's file descriptors refer to `path`.
int descriptors_on(const std::string& path) {
    char real[PATH_MAX];
    REQUIRE(realpath(path.c_str(), real) != nullptr);
    int count = 0;
    DIR* fds = opendir("/proc/self/fd");
    REQUIRE(fds != nullptr);
    while (dirent* entry = readdir(fds)) {
        char target[PATH_MAX];
        const std::string link = std::string("/proc/self/fd/") + entry->d_name;
        const ssize_t length = readlink(link.c_str(), target, sizeof target - 1);
        if (length <= 0) continue;
        target[length] = '\0';
        if (std::string(target) == real) ++count;
    }
    closedir(fds);
    return count;
}

}  // namespace

TEST_CASE("status reads open no connection after the first one") {
    TempDir dir;
    const std::string path = dir.file("status.db");
    StoreOptions options = test_options();
    options.vfs_name = register_counting_vfs();
    auto store = open_store(path, options);
    REQUIRE_OK(store->record_alarm(sample_alarm("pump-1", "first")));
    REQUIRE_OK(store->stats());
    const int opens_after_first = main_db_opens.load();

    for (int i = 0; i < 50; ++i) {
        REQUIRE_OK(store->record_alarm(sample_alarm("pump-1", "k" + std::to_string(i))));
        auto stats = store->stats();
        REQUIRE_OK(stats);
        CHECK(stats->pending == i + 2);
    }
    CHECK(main_db_opens.load() == opens_after_first);
    REQUIRE_OK(store->close());
}

TEST_CASE("a status read leaves no read transaction open: a checkpoint passes every frame") {
    TempDir dir;
    const std::string path = dir.file("status.db");
    auto store = open_store(path, test_options());
    REQUIRE_OK(store->record_alarm(sample_alarm("pump-1", "first")));
    REQUIRE_OK(store->stats());
    // Frames the status connection's last snapshot does not contain: a read
    // still open there would keep a checkpoint from copying them back.
    for (int i = 0; i < 20; ++i) {
        REQUIRE_OK(store->record_alarm(sample_alarm("pump-2", "k" + std::to_string(i))));
    }
    RawSqlite outside(path);
    outside.exec("PRAGMA busy_timeout = 200");
    // TRUNCATE waits for every reader to leave the WAL; busy is 1 if one
    // still reads an older snapshot.
    const auto row = outside.column("PRAGMA wal_checkpoint(TRUNCATE)");
    REQUIRE(!row.empty());
    CHECK(row.front() == "0");
    REQUIRE_OK(store->close());
}

TEST_CASE("close() lets go of the database file and removes the WAL, status connection included") {
    TempDir dir;
    const std::string path = dir.file("status.db");
    auto store = open_store(path, test_options());
    REQUIRE_OK(store->record_alarm(sample_alarm()));
    REQUIRE_OK(store->stats());
    CHECK(descriptors_on(path) > 0);
    REQUIRE_OK(store->close());
    CHECK(descriptors_on(path) == 0);
    // The writer closed last: it checkpointed and removed the WAL.
    CHECK(access((path + "-wal").c_str(), F_OK) != 0);
}
