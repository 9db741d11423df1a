// The services' one logger: off the journal a line names the program, the
// process's tag and the level; on the journal (stderr is the stream
// $JOURNAL_STREAM names) it starts with the syslog priority "<N>" instead,
// so journald files it at that level. The status line stays bare either way.
#include "common/service_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <functional>
#include <string>

#include "file_content.h"
#include "temp_dir.h"

using outpost::testing::file_content;
using outpost::testing::TempDir;

namespace {

// What the logger writes to stderr while `body` runs, with stderr sent to
// `path` and JOURNAL_STREAM naming that file or not.
std::string stderr_of(const std::string& path, bool journal, const std::function<void()>& body) {
    const int file = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    REQUIRE(file >= 0);
    struct stat info {};
    REQUIRE(::fstat(file, &info) == 0);
    const std::string stream = std::to_string(info.st_dev) + ":" + std::to_string(info.st_ino);
    if (journal) {
        ::setenv("JOURNAL_STREAM", stream.c_str(), 1);
    } else {
        ::unsetenv("JOURNAL_STREAM");
    }
    const int saved = ::dup(2);
    REQUIRE(::dup2(file, 2) == 2);
    body();
    REQUIRE(::dup2(saved, 2) == 2);
    ::close(saved);
    ::close(file);
    ::unsetenv("JOURNAL_STREAM");
    return file_content(path);
}

}  // namespace

TEST_CASE("off the journal a line names the program, the tag and the level") {
    TempDir dir;
    const std::string text = stderr_of(dir.file("plain.log"), false, [] {
        outpost::configure_log("outpost-bridge", outpost::LogLevel::kInfo, false);
        outpost::log_warning("first");
        outpost::log_debug("below the level: dropped");
        outpost::set_log_tag("session 1");
        outpost::log_error("second");
        outpost::log_json_line(R"({"forwarded":1})");
    });
    CHECK(text ==
          "outpost-bridge warn: first\n"
          "outpost-bridge[session 1] error: second\n"
          "{\"forwarded\":1}\n");
}

TEST_CASE("on the journal each line starts with its syslog priority") {
    TempDir dir;
    const std::string text = stderr_of(dir.file("journal.log"), true, [] {
        outpost::configure_log("outpost-bridge", outpost::LogLevel::kDebug, false);
        outpost::set_log_tag("session 2");
        outpost::log_error("e");
        outpost::log_warning("w");
        outpost::log_info("i");
        outpost::log_debug("d");
        outpost::log_json_line(R"({"forwarded":2})");
    });
    CHECK(text ==
          "<3>[session 2] e\n"
          "<4>[session 2] w\n"
          "<6>[session 2] i\n"
          "<7>[session 2] d\n"
          "{\"forwarded\":2}\n");
}
