// The dm-log-writes reader: what it reads from a well-formed log, and the
// damaged logs it refuses (a replay built on a misread log would prove
// nothing).
#include "proof/vm/block_log.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "log_builder.h"
#include "temp_dir.h"

using namespace outpost::torture::vm;
using outpost::testing::LogBuilder;
using outpost::testing::TempDir;

TEST_CASE("a log's writes, flushes and discards are read in order with their data") {
    TempDir dir;
    const std::string path = dir.path() + "/disk.log";
    LogBuilder().write(8, 2, 0xAB).flush().discard(100, 4).write(16, 1, 0xCD).save(path);
    std::string error;
    auto log = BlockLog::open(path, &error);
    INFO(error);
    REQUIRE(log);
    REQUIRE(log->entries().size() == 4);
    CHECK(log->sector_size() == 512);
    CHECK(log->counted_entries() == 2);  // the entries after the last flush are read too
    const LogEntry& first = log->entries()[0];
    CHECK(first.is_write());
    CHECK(first.sector == 8);
    CHECK(first.sectors == 2);
    CHECK(log->data(first)[0] == 0xAB);
    CHECK(log->data(first)[1023] == 0xAB);
    CHECK(log->entries()[1].is_flush());
    CHECK_FALSE(log->entries()[1].is_write());
    CHECK(log->entries()[2].is_discard());
    CHECK_FALSE(log->entries()[2].is_write());
    CHECK(log->data(log->entries()[3])[0] == 0xCD);
}

TEST_CASE("an entry is found by the log length QEMU had reached") {
    TempDir dir;
    const std::string path = dir.path() + "/disk.log";
    // Entries start at bytes 512 (write, 1 + 2 sectors), 2048 (flush), 2560 (write).
    LogBuilder().write(0, 2, 1).flush().write(4, 1, 2).save(path);
    std::string error;
    auto log = BlockLog::open(path, &error);
    REQUIRE(log);
    CHECK(log->first_entry_at_or_after(0) == 0);
    CHECK(log->first_entry_at_or_after(512) == 0);
    CHECK(log->first_entry_at_or_after(513) == 1);
    CHECK(log->first_entry_at_or_after(2048) == 1);
    CHECK(log->first_entry_at_or_after(2049) == 2);
    CHECK(log->first_entry_at_or_after(1 << 20) == 3);
}

TEST_CASE("damaged logs are refused with the reason") {
    TempDir dir;
    const std::string path = dir.path() + "/disk.log";
    std::string error;
    SECTION("not a dm-log-writes log") {
        LogBuilder().write(0, 1, 1).save(path, 0x1234);
        CHECK_FALSE(BlockLog::open(path, &error));
        CHECK(error.find("magic") != std::string::npos);
    }
    SECTION("unknown flags") {
        LogBuilder().raw_entry(0, 0, 1u << 7, 0).save(path);
        CHECK_FALSE(BlockLog::open(path, &error));
        CHECK(error.find("unknown flags") != std::string::npos);
    }
    SECTION("a write whose data runs past the end of the file") {
        LogBuilder().raw_entry(0, 3, 0, 0).save(path);
        CHECK_FALSE(BlockLog::open(path, &error));
        CHECK(error.find("past the end") != std::string::npos);
    }
    SECTION("fewer entries than the super block counts") {
        LogBuilder().write(0, 1, 1).flush().count(5).save(path);
        CHECK_FALSE(BlockLog::open(path, &error));
        CHECK(error.find("counts 5") != std::string::npos);
    }
    SECTION("no file") {
        CHECK_FALSE(BlockLog::open(dir.path() + "/missing.log", &error));
        CHECK(error.find("cannot open") != std::string::npos);
    }
}
