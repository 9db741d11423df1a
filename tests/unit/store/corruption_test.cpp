// A damaged database is reported and never wiped.
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "outpost/store.h"
#include "raw_sqlite.h"
#include "store_fixture.h"
#include "temp_dir.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

void write_file(const std::string& path, const std::string& content) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << content;
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

// Overwrites B-tree pages of a real store with garbage, as a failing card would.
void damage_store(const std::string& path) {
    {
        auto store = open_store(path, test_options());
        for (int i = 0; i < 300; ++i) REQUIRE_OK(store->record_alarm(sample_alarm()));
    }
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    // Pages 2..5 hold the roots and first leaves of the store's tables.
    file.seekp(4096);
    std::string garbage(4 * 4096, '\x5a');
    file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
}

// Makes a file immutable (chattr +i) for its lifetime, so that even root
// cannot rename it: the way to make one rename of move_aside fail.
class ImmutableFile final {
  public:
    explicit ImmutableFile(const std::string& path) : path_(path) { set_ = change(true); }
    ~ImmutableFile() {
        if (set_) change(false);
    }
    ImmutableFile(const ImmutableFile&) = delete;
    ImmutableFile& operator=(const ImmutableFile&) = delete;
    // False where the file system or the user's capabilities do not allow it.
    bool is_set() const { return set_; }

  private:
    bool change(bool immutable) {
        int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) return false;
        int flags = 0;
        bool done = ::ioctl(fd, FS_IOC_GETFLAGS, &flags) == 0;
        if (done) {
            flags = immutable ? (flags | FS_IMMUTABLE_FL) : (flags & ~FS_IMMUTABLE_FL);
            done = ::ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0;
        }
        ::close(fd);
        return done;
    }
    std::string path_;
    bool set_ = false;
};

StoreOptions move_aside_options() {
    StoreOptions options = test_options();
    options.corruption_policy = CorruptionPolicy::kMoveAside;
    return options;
}

}  // namespace

TEST_CASE("a file that is not a database is refused as corrupt and left byte for byte") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    const std::string junk(8192, '\x42');
    write_file(path, junk);
    auto result = Store::open(path, test_options());
    REQUIRE_FALSE(result.is_ok());
    CHECK(result.status().code() == StatusCode::kCorruption);
    CHECK_THAT(result.status().message(), Catch::Contains("untouched"));
    CHECK((read_file(path) == junk));
}

TEST_CASE("a damaged page is found at open and the file is left in place by default") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    damage_store(path);
    const std::string before = read_file(path);
    auto result = Store::open(path, test_options());
    REQUIRE_FALSE(result.is_ok());
    CHECK(result.status().code() == StatusCode::kCorruption);
    CHECK((read_file(path) == before));
}

TEST_CASE("with the move-aside policy a damaged store is kept beside a fresh one") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    damage_store(path);
    const std::string before = read_file(path);
    StoreOptions options = test_options();
    options.corruption_policy = CorruptionPolicy::kMoveAside;
    auto store = open_store(path, options);
    const OpenReport& report = store->open_report();
    CHECK(report.moved_aside_path == path + ".corrupt-1");
    CHECK_FALSE(report.corruption_detail.empty());
    CHECK((read_file(report.moved_aside_path) == before));
    auto recorded = store->record_alarm(sample_alarm());
    REQUIRE_OK(recorded);
    CHECK(recorded->seq == 1);
}

TEST_CASE("moving a damaged store aside never pairs it with an earlier copy's leftover WAL") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    damage_store(path);
    // Evidence from an earlier incident: its database is gone, its WAL is not.
    const std::string leftover = path + ".corrupt-1-wal";
    write_file(leftover, "earlier evidence");
    auto store = open_store(path, move_aside_options());
    CHECK(store->open_report().moved_aside_path == path + ".corrupt-2");
    CHECK(read_file(leftover) == "earlier evidence");
}

TEST_CASE("a damaged store whose WAL cannot be moved aside is left whole where it was") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    damage_store(path);
    const std::string before = read_file(path);
    const std::string wal = path + "-wal";
    write_file(wal, "");  // an empty WAL: nothing for SQLite to replay
    ImmutableFile pinned(wal);
    if (!pinned.is_set()) {
        WARN("cannot make " << wal << " immutable here (needs root on ext4/xfs): not tested");
        return;
    }
    auto result = Store::open(path, move_aside_options());
    REQUIRE_FALSE(result.is_ok());
    INFO(result.status().to_string());
    CHECK(result.status().code() == StatusCode::kIoError);
    CHECK_THAT(result.status().message(), Catch::Contains("nothing was moved"));
    CHECK((read_file(path) == before));
    struct stat st {};
    CHECK(::stat((path + ".corrupt-1").c_str(), &st) != 0);
}

TEST_CASE(
    "with check_once_per_boot the whole-file check runs once per boot and again after a reboot") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    ManualClock clock;
    StoreOptions options = test_options(&clock);
    options.check_once_per_boot = true;
    auto checked_at_open = [&](const StoreOptions& with) {
        auto store = open_store(path, with);
        return store->open_report().integrity_checked;
    };
    CHECK(checked_at_open(options));        // first open in this boot
    CHECK_FALSE(checked_at_open(options));  // a daemon restart in the same boot
    clock.reboot("99999999-2222-3333-4444-555555555555");
    CHECK(checked_at_open(options));  // the next boot checks again
    CHECK_FALSE(checked_at_open(options));

    StoreOptions every_open = test_options(&clock);  // the library's default
    CHECK(checked_at_open(every_open));
    CHECK(checked_at_open(every_open));
    every_open.check_on_open = false;
    CHECK_FALSE(checked_at_open(every_open));
}
