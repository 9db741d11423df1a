// Proves the simulator's model of a power cut byte by byte, on files written
// directly through the VFS: what a sync makes durable, what each cut mode
// keeps, how a torn write lands sector by sector with and without powersafe
// overwrite, and that a seed reproduces a cut.
#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "proof/powercut_vfs.h"
#include "raw_file.h"
#include "temp_dir.h"

namespace outpost::testing {
namespace {

constexpr std::size_t kSector = 512;

// A VFS, a directory the "machine" writes in, and one for the images.
struct Bench {
    explicit Bench(bool powersafe_overwrite = true) {
        PowercutOptions options;
        options.forward_syncs = false;
        options.device.sector_size = kSector;
        options.device.powersafe_overwrite = powersafe_overwrite;
        std::string error;
        vfs = PowercutVfs::create("powercut-model", options, &error);
        REQUIRE(vfs != nullptr);
    }

    std::string path(const std::string& name) const { return running.file(name); }
    ByteString image(const std::string& name) {
        std::string error;
        if (!images_written) {
            REQUIRE(vfs->write_images(after_cut.path(), &error));
            images_written = true;
        }
        return read_host_file(after_cut.file(name));
    }

    TempDir running{TempDir::Base::kPreferTmpfs};
    TempDir after_cut{TempDir::Base::kPreferTmpfs};
    std::unique_ptr<PowercutVfs> vfs;
    bool images_written = false;
};

// A synced 4 KiB file of 'a', then `write` issued without a sync, then a cut.
ByteString cut_after_one_write(bool powersafe_overwrite, CutPolicy policy, long long offset,
                               const ByteString& write) {
    Bench bench(powersafe_overwrite);
    {
        RawFile file(bench.vfs->name(), bench.path("f.db"), SQLITE_OPEN_MAIN_DB);
        REQUIRE(file.open_rc() == SQLITE_OK);
        REQUIRE(file.write(0, filled(4096, 'a')) == SQLITE_OK);
        REQUIRE(file.sync() == SQLITE_OK);
        REQUIRE(file.write(offset, write) == SQLITE_OK);
        REQUIRE(bench.vfs->cut_now(policy));
    }
    return bench.image("f.db");
}

TEST_CASE("dropping all pending leaves exactly what the last sync made durable") {
    Bench bench;
    {
        RawFile file(bench.vfs->name(), bench.path("f.db"), SQLITE_OPEN_MAIN_DB);
        REQUIRE(file.write(0, filled(4096, 'a')) == SQLITE_OK);
        REQUIRE(file.sync() == SQLITE_OK);
        REQUIRE(file.write(0, filled(512, 'b')) == SQLITE_OK);
        REQUIRE(file.write(8192, filled(100, 'c')) == SQLITE_OK);
        REQUIRE(file.truncate(1024) == SQLITE_OK);
        REQUIRE(bench.vfs->cut_now({CutMode::kDropAllPending, 0}));
    }
    CHECK(bench.image("f.db") == filled(4096, 'a'));
    CHECK(bench.vfs->cut_summary().dropped == 3);
}

TEST_CASE("keeping all pending leaves what the process wrote, as after a process crash") {
    Bench bench;
    ByteString before_cut;
    {
        RawFile file(bench.vfs->name(), bench.path("f.db"), SQLITE_OPEN_MAIN_DB);
        REQUIRE(file.write(0, filled(4096, 'a')) == SQLITE_OK);
        REQUIRE(file.sync() == SQLITE_OK);
        REQUIRE(file.write(100, filled(700, 'b')) == SQLITE_OK);
        REQUIRE(file.truncate(3000) == SQLITE_OK);
        REQUIRE(file.write(5000, filled(10, 'c')) == SQLITE_OK);
        before_cut = read_host_file(bench.path("f.db"));
        REQUIRE(bench.vfs->cut_now({CutMode::kKeepAllPending, 0}));
    }
    CHECK(bench.image("f.db") == before_cut);
    CHECK(before_cut.size() == 5010);
}

TEST_CASE("a file never synced is empty after a cut that drops pending writes") {
    Bench bench;
    {
        RawFile db(bench.vfs->name(), bench.path("f.db"), SQLITE_OPEN_MAIN_DB);
        RawFile wal(bench.vfs->name(), bench.path("f.db-wal"), SQLITE_OPEN_WAL);
        REQUIRE(wal.open_rc() == SQLITE_OK);
        REQUIRE(wal.write(0, filled(4120, 'w')) == SQLITE_OK);
        REQUIRE(bench.vfs->cut_now({CutMode::kDropAllPending, 0}));
    }
    CHECK(bench.image("f.db-wal").empty());
    CHECK(bench.vfs->image_names() == std::vector<std::string>{"f.db", "f.db-wal"});
}

TEST_CASE("with powersafe overwrite a torn write lands whole sectors and touches nothing else") {
    // Bytes 100..1299 span sectors 0, 1 and 2, partly covering 0 and 2.
    const long long offset = 100;
    const ByteString write = filled(1200, 'b');
    int torn_mixed = 0;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        const ByteString image = cut_after_one_write(true, {CutMode::kRandom, seed}, offset, write);
        REQUIRE(image.size() == 4096);
        int outside_changed = 0;
        int inside_foreign = 0;
        for (std::size_t i = 0; i < image.size(); ++i) {
            const bool written = i >= 100 && i < 1300;
            if (!written && image[i] != 'a') ++outside_changed;
            if (written && image[i] != 'a' && image[i] != 'b') ++inside_foreign;
        }
        REQUIRE(outside_changed == 0);
        REQUIRE(inside_foreign == 0);
        // Within each sector the written part is all old or all new.
        bool saw_old = false;
        bool saw_new = false;
        for (std::size_t sector = 0; sector < 3; ++sector) {
            const std::size_t low = std::max<std::size_t>(100, sector * kSector);
            const std::size_t high = std::min<std::size_t>(1300, (sector + 1) * kSector);
            const ByteString part(image.begin() + low, image.begin() + high);
            REQUIRE(part == filled(high - low, image[low]));
            (image[low] == 'a' ? saw_old : saw_new) = true;
        }
        torn_mixed += saw_old && saw_new ? 1 : 0;
    }
    CHECK(torn_mixed > 0);  // some seed really tore the write
}

TEST_CASE("without powersafe overwrite a torn write may garble its whole sectors, no others") {
    const long long offset = 100;
    const ByteString write = filled(1200, 'b');
    int garbled_outside_write = 0;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        const ByteString image =
            cut_after_one_write(false, {CutMode::kRandom, seed}, offset, write);
        REQUIRE(image.size() == 4096);
        // Sectors 3..7 were not touched: never damaged.
        const ByteString untouched(image.begin() + 3 * kSector, image.end());
        REQUIRE(untouched == filled(image.size() - 3 * kSector, 'a'));
        for (std::size_t i = 0; i < 100; ++i) {
            if (image[i] != 'a') {
                ++garbled_outside_write;
                break;
            }
        }
    }
    CHECK(garbled_outside_write > 0);
}

TEST_CASE("a torn write that extends a file extends it, with unwritten sectors zero") {
    int zero_sectors = 0;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        const ByteString image =
            cut_after_one_write(true, {CutMode::kRandom, seed}, 4096, filled(2048, 'b'));
        REQUIRE(ByteString(image.begin(), image.begin() + 4096) == filled(4096, 'a'));
        if (image.size() == 4096) continue;  // the write was dropped whole
        REQUIRE(image.size() == 6144);
        for (std::size_t first = 4096; first < image.size(); first += kSector) {
            const ByteString sector(image.begin() + first, image.begin() + first + kSector);
            REQUIRE((sector == filled(kSector, 'b') || sector == filled(kSector, 0)));
            zero_sectors += sector[0] == 0 ? 1 : 0;
        }
    }
    CHECK(zero_sectors > 0);
}

TEST_CASE("one seed reproduces one cut; other seeds give other cuts") {
    const ByteString write = filled(3000, 'b');
    const ByteString first = cut_after_one_write(false, {CutMode::kRandom, 7}, 300, write);
    const ByteString again = cut_after_one_write(false, {CutMode::kRandom, 7}, 300, write);
    CHECK(first == again);
    bool some_differ = false;
    for (std::uint64_t seed = 8; seed < 20 && !some_differ; ++seed) {
        some_differ = cut_after_one_write(false, {CutMode::kRandom, seed}, 300, write) != first;
    }
    CHECK(some_differ);
}

TEST_CASE("a cut before a sync leaves its writes pending; a cut after it keeps them") {
    SECTION("before") {
        Bench bench;
        {
            RawFile file(bench.vfs->name(), bench.path("f.db"), SQLITE_OPEN_MAIN_DB);
            REQUIRE(bench.vfs->arm(CutTrigger::before_sync(2), {CutMode::kDropAllPending, 0}));
            REQUIRE(file.write(0, filled(512, 'a')) == SQLITE_OK);
            REQUIRE(file.sync() == SQLITE_OK);
            REQUIRE(file.write(0, filled(512, 'b')) == SQLITE_OK);
            CHECK(file.sync() == SQLITE_IOERR_FSYNC);
            CHECK(bench.vfs->is_off());
        }
        CHECK(bench.image("f.db") == filled(512, 'a'));
    }
    SECTION("after") {
        Bench bench;
        {
            RawFile file(bench.vfs->name(), bench.path("f.db"), SQLITE_OPEN_MAIN_DB);
            REQUIRE(bench.vfs->arm(CutTrigger::after_sync(2), {CutMode::kDropAllPending, 0}));
            REQUIRE(file.write(0, filled(512, 'a')) == SQLITE_OK);
            REQUIRE(file.sync() == SQLITE_OK);
            REQUIRE(file.write(0, filled(512, 'b')) == SQLITE_OK);
            CHECK(file.sync() == SQLITE_OK);  // the sync completed, then the power went
            CHECK(bench.vfs->is_off());
            CHECK(file.write(0, filled(512, 'c')) == SQLITE_IOERR_WRITE);
        }
        CHECK(bench.image("f.db") == filled(512, 'b'));
    }
}

TEST_CASE("the write in flight at a write-triggered cut may survive, vanish or tear") {
    int survived = 0;
    int vanished = 0;
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
        Bench bench;
        {
            RawFile file(bench.vfs->name(), bench.path("f.db"), SQLITE_OPEN_MAIN_DB);
            REQUIRE(bench.vfs->arm(CutTrigger::during_write(2), {CutMode::kRandom, seed}));
            REQUIRE(file.write(0, filled(1024, 'a')) == SQLITE_OK);
            REQUIRE(file.sync() == SQLITE_OK);
            CHECK(file.write(0, filled(1024, 'b')) == SQLITE_IOERR_WRITE);
        }
        const ByteString image = bench.image("f.db");
        survived += image == filled(1024, 'b') ? 1 : 0;
        vanished += image == filled(1024, 'a') ? 1 : 0;
    }
    CHECK(survived > 0);
    CHECK(vanished > 0);
}

TEST_CASE("each file keeps its own pending writes: a sync of one does not save another") {
    Bench bench;
    {
        RawFile db(bench.vfs->name(), bench.path("f.db"), SQLITE_OPEN_MAIN_DB);
        RawFile wal(bench.vfs->name(), bench.path("f.db-wal"), SQLITE_OPEN_WAL);
        REQUIRE(wal.open_rc() == SQLITE_OK);
        REQUIRE(db.write(0, filled(512, 'd')) == SQLITE_OK);
        REQUIRE(wal.write(0, filled(512, 'w')) == SQLITE_OK);
        REQUIRE(wal.sync() == SQLITE_OK);
        REQUIRE(bench.vfs->cut_now({CutMode::kDropAllPending, 0}));
    }
    CHECK(bench.image("f.db").empty());
    CHECK(bench.image("f.db-wal") == filled(512, 'w'));
}

TEST_CASE("closing a file does not make its writes durable; reopening sees them pending") {
    Bench bench;
    {
        RawFile file(bench.vfs->name(), bench.path("f.db"), SQLITE_OPEN_MAIN_DB);
        REQUIRE(file.write(0, filled(512, 'a')) == SQLITE_OK);
        REQUIRE(file.sync() == SQLITE_OK);
        REQUIRE(file.write(0, filled(512, 'b')) == SQLITE_OK);
    }
    {
        RawFile again(bench.vfs->name(), bench.path("f.db"), SQLITE_OPEN_MAIN_DB);
        ByteString read;
        REQUIRE(again.read(0, 512, &read) == SQLITE_OK);
        CHECK(read == filled(512, 'b'));
        REQUIRE(bench.vfs->cut_now({CutMode::kDropAllPending, 0}));
    }
    CHECK(bench.image("f.db") == filled(512, 'a'));
}

TEST_CASE("counters count bytes and syncs per file kind") {
    Bench bench;
    RawFile db(bench.vfs->name(), bench.path("f.db"), SQLITE_OPEN_MAIN_DB);
    RawFile wal(bench.vfs->name(), bench.path("f.db-wal"), SQLITE_OPEN_WAL);
    RawFile journal(bench.vfs->name(), bench.path("f.db-journal"), SQLITE_OPEN_MAIN_JOURNAL);
    REQUIRE(db.write(0, filled(100, 'd')) == SQLITE_OK);
    REQUIRE(wal.write(0, filled(200, 'w')) == SQLITE_OK);
    REQUIRE(wal.write(200, filled(300, 'w')) == SQLITE_OK);
    REQUIRE(journal.write(0, filled(50, 'j')) == SQLITE_OK);
    REQUIRE(wal.sync() == SQLITE_OK);
    REQUIRE(db.sync() == SQLITE_OK);
    REQUIRE(db.sync() == SQLITE_OK);
    const IoCounters counters = bench.vfs->counters();
    CHECK(counters.main_db.bytes_written == 100);
    CHECK(counters.main_db.syncs == 2);
    CHECK(counters.wal.bytes_written == 500);
    CHECK(counters.wal.writes == 2);
    CHECK(counters.wal.syncs == 1);
    CHECK(counters.journal.bytes_written == 50);
    CHECK(counters.of(FileKind::kJournal).syncs == 0);
    CHECK(counters.total_bytes_written() == 650);
    CHECK(counters.total_syncs() == 3);
    bench.vfs->reset_counters();
    CHECK(bench.vfs->counters().total_bytes_written() == 0);
}

TEST_CASE("a VFS name can be registered once; invalid sector sizes are refused") {
    std::string error;
    auto first = PowercutVfs::create("powercut-once", PowercutOptions{}, &error);
    REQUIRE(first != nullptr);
    CHECK(PowercutVfs::create("powercut-once", PowercutOptions{}, &error) == nullptr);
    CHECK(!error.empty());
    PowercutOptions odd;
    odd.device.sector_size = 1000;
    CHECK(PowercutVfs::create("powercut-odd", odd, &error) == nullptr);
    CHECK(sqlite3_vfs_find("powercut-odd") == nullptr);
    first.reset();
    CHECK(sqlite3_vfs_find("powercut-once") == nullptr);
}

TEST_CASE("a counting-only VFS counts I/O but refuses to simulate a cut") {
    PowercutOptions options;
    options.forward_syncs = false;
    options.simulate_cuts = false;
    std::string error;
    auto vfs = PowercutVfs::create("powercut-counting", options, &error);
    REQUIRE(vfs != nullptr);
    TempDir dir(TempDir::Base::kPreferTmpfs);
    {
        RawFile file(vfs->name(), dir.file("f.db"), SQLITE_OPEN_MAIN_DB);
        REQUIRE(file.write(0, filled(4096, 'a')) == SQLITE_OK);
        REQUIRE(file.sync() == SQLITE_OK);
    }
    CHECK(vfs->counters().main_db.bytes_written == 4096);
    CHECK(vfs->counters().main_db.syncs == 1);
    CHECK_FALSE(vfs->arm(CutTrigger::before_sync(1), {}));
    CHECK_FALSE(vfs->cut_now({}));
    CHECK_FALSE(vfs->is_off());
}

TEST_CASE("write_images refuses while the power is on") {
    Bench bench;
    TempDir out(TempDir::Base::kPreferTmpfs);
    std::string error;
    CHECK_FALSE(bench.vfs->write_images(out.path(), &error));
    CHECK(error.find("still on") != std::string::npos);
}

}  // namespace
}  // namespace outpost::testing
