// The metrics textfile is written through a temporary file created new: a
// symbolic link planted at "<path>.tmp" is replaced, and the file it points
// to is left as it was.
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <string>

#include "daemon/metrics_textfile.h"
#include "file_content.h"
#include "temp_dir.h"

TEST_CASE("a symbolic link at the textfile's temporary path is never written through") {
    outpost::testing::TempDir dir;
    const std::string victim = dir.file("victim.conf");
    std::ofstream(victim) << "precious";
    const std::string path = dir.file("outpost.prom");
    REQUIRE(::symlink(victim.c_str(), (path + ".tmp").c_str()) == 0);

    REQUIRE(outpost::daemon::write_metrics_textfile(path, "outpost_up 1\n").is_ok());
    CHECK(outpost::testing::file_content(victim) == "precious");
    CHECK(outpost::testing::file_content(path) == "outpost_up 1\n");
    struct stat info {};
    REQUIRE(::lstat(path.c_str(), &info) == 0);
    CHECK(S_ISREG(info.st_mode));
}

TEST_CASE("a temporary file left by an earlier run does not stop the next write") {
    outpost::testing::TempDir dir;
    const std::string path = dir.file("outpost.prom");
    std::ofstream(path + ".tmp") << "half written";
    REQUIRE(outpost::daemon::write_metrics_textfile(path, "outpost_up 2\n").is_ok());
    CHECK(outpost::testing::file_content(path) == "outpost_up 2\n");
    CHECK(::access((path + ".tmp").c_str(), F_OK) != 0);
}
