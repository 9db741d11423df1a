// The database file is created with mode 0640 whatever the umask (its -wal
// and -shm follow it), and a symbolic link at the database path is refused
// rather than followed onto another file.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "outpost/store.h"
#include "store_fixture.h"
#include "file_content.h"
#include "temp_dir.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

unsigned mode_of(const std::string& path) {
    struct stat info {};
    REQUIRE(::lstat(path.c_str(), &info) == 0);
    return static_cast<unsigned>(info.st_mode & 07777);
}

}  // namespace

TEST_CASE("a new database file gets mode 0640 even under a permissive umask") {
    TempDir dir;
    const std::string path = dir.file("outbox.db");
    const mode_t before = ::umask(0);
    auto store = Store::open(path, test_options());
    ::umask(before);
    REQUIRE(store.is_ok());
    CHECK(mode_of(path) == 0640u);
    CHECK(mode_of(path + "-wal") == 0640u);
}

TEST_CASE("a symbolic link at the database path is refused, and its target left untouched") {
    TempDir dir;
    // Empty: SQLite would take it for a new database and write one into it.
    const std::string victim = dir.file("victim.db");
    std::ofstream(victim).flush();
    const std::string path = dir.file("outbox.db");
    REQUIRE(::symlink(victim.c_str(), path.c_str()) == 0);
    auto store = Store::open(path, test_options());
    REQUIRE_FALSE(store.is_ok());
    CHECK(store.status().message().find("symbolic link") != std::string::npos);
    CHECK(outpost::testing::file_content(victim).empty());

    const std::string dangling = dir.file("dangling.db");
    REQUIRE(::symlink(dir.file("would-be-created.db").c_str(), dangling.c_str()) == 0);
    CHECK_FALSE(Store::open(dangling, test_options()).is_ok());
    CHECK(::access(dir.file("would-be-created.db").c_str(), F_OK) != 0);
}
