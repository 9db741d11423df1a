// Crash states from a block log: which flush points a plan takes, which
// writes after the flush survive under each tail policy, and the disk bytes
// a state replays to.
#include "proof/vm/crash_state.h"

#include <catch2/catch.hpp>
#include <set>

#include "log_builder.h"
#include "temp_dir.h"
#include "proof/vm/disk_image.h"

using namespace outpost::torture::vm;
using outpost::testing::LogBuilder;
using outpost::testing::TempDir;

namespace {

std::unique_ptr<BlockLog> open_log(const TempDir& dir, const LogBuilder& builder) {
    const std::string path = dir.path() + "/disk.log";
    builder.save(path);
    std::string error;
    auto log = BlockLog::open(path, &error);
    INFO(error);
    REQUIRE(log);
    return log;
}

// Four epochs: w0 | flush | w1 w2 | flush | w3 (FUA) w4 | flush | w5
LogBuilder four_epochs() {
    return LogBuilder()
        .write(0, 1, 0x10)           // 0
        .flush()                     // 1
        .write(1, 1, 0x11)           // 2
        .write(2, 2, 0x12)           // 3
        .flush()                     // 4
        .write(4, 1, 0x13, kLogFua)  // 5
        .write(5, 4, 0x14)           // 6
        .flush()                     // 7
        .write(9, 1, 0x15);          // 8
}

CrashState state(size_t prefix_end, size_t cut, TailPolicy tail, uint64_t seed = 1) {
    CrashState s;
    s.prefix_end = prefix_end;
    s.cut = cut;
    s.tail = tail;
    s.seed = seed;
    return s;
}

}  // namespace

TEST_CASE("with enough states every flush point is replayed once with nothing after it") {
    TempDir dir;
    auto log = open_log(dir, four_epochs());
    CHECK(flush_points(*log) == std::vector<size_t>{1, 4, 7});
    const auto states = plan_states(*log, 10, 42, 100);
    REQUIRE(states.size() == 10);
    std::set<size_t> clean_prefixes;
    for (size_t i = 0; i < states.size(); ++i) {
        CHECK(states[i].id == 100 + i);
        if (i > 0) CHECK(states[i - 1].prefix_end <= states[i].prefix_end);
        if (states[i].tail == TailPolicy::kNone) clean_prefixes.insert(states[i].prefix_end);
        // The cut is the next flush, or the end of the log.
        const size_t cut = states[i].cut;
        CHECK((cut == log->entries().size() || log->entries()[cut].is_flush()));
        CHECK(cut >= states[i].prefix_end);
    }
    // Before the first flush, and up to each of the three.
    CHECK(clean_prefixes == std::set<size_t>{0, 2, 5, 8});
}

TEST_CASE("few states spread over the log, and a seed always names the same states") {
    TempDir dir;
    LogBuilder builder;
    for (int i = 0; i < 50; ++i) builder.write(static_cast<uint64_t>(i), 1, 1).flush();
    auto log = open_log(dir, builder);
    const auto states = plan_states(*log, 5, 7, 0);
    REQUIRE(states.size() == 5);
    CHECK(states.front().prefix_end < 30);
    CHECK(states.back().prefix_end > 70);
    const auto again = plan_states(*log, 5, 7, 0);
    for (size_t i = 0; i < states.size(); ++i) {
        CHECK(again[i].prefix_end == states[i].prefix_end);
        CHECK(again[i].seed == states[i].seed);
    }
}

TEST_CASE("the writes after the flush survive as the tail policy says") {
    TempDir dir;
    auto log = open_log(dir, four_epochs());
    // The epoch after flush 4: w3 (FUA) and w4, cut at flush 7.
    SECTION("none: only the FUA write, which was durable when it completed") {
        const auto kept = surviving_tail(*log, state(5, 7, TailPolicy::kNone));
        REQUIRE(kept.size() == 1);
        CHECK(kept[0].entry == 5);
    }
    SECTION("all") {
        const auto kept = surviving_tail(*log, state(5, 7, TailPolicy::kAll));
        REQUIRE(kept.size() == 2);
        CHECK(kept[1].entry == 6);
        CHECK(kept[1].sectors.empty());
    }
    SECTION("random: over seeds, each non-FUA write both survives and is lost") {
        std::set<size_t> sizes;
        for (uint64_t seed = 0; seed < 64; ++seed) {
            sizes.insert(surviving_tail(*log, state(5, 7, TailPolicy::kRandom, seed)).size());
        }
        CHECK(sizes == std::set<size_t>{1, 2});
    }
    SECTION("random torn: a surviving multi-sector write keeps some sectors, not all") {
        bool torn_seen = false;
        for (uint64_t seed = 0; seed < 64; ++seed) {
            for (const auto& kept :
                 surviving_tail(*log, state(5, 7, TailPolicy::kRandomTorn, seed))) {
                if (kept.sectors.empty()) continue;
                torn_seen = true;
                CHECK(kept.entry == 6);
                REQUIRE(kept.sectors.size() == 4);
                size_t survived = 0;
                for (bool sector : kept.sectors) survived += sector ? 1 : 0;
                CHECK(survived > 0);
                CHECK(survived < 4);
            }
        }
        CHECK(torn_seen);
    }
}

TEST_CASE("a state's disk is the prefix plus its surviving tail, and never the evidence region") {
    TempDir dir;
    auto log = open_log(dir, four_epochs());
    const DiskImage base(std::vector<uint8_t>(16 * 512, 0));
    const uint64_t limit = 9 * 512;  // sector 9 (w5) lies beyond: evidence, not state
    Replayer replayer(*log, base, limit);
    auto sector = [](const DiskImage& image, uint64_t s) { return image.bytes()[s * 512 + 7]; };
    const DiskImage first = replayer.state(state(2, 4, TailPolicy::kNone));
    CHECK(sector(first, 0) == 0x10);
    CHECK(sector(first, 1) == 0);  // written after the flush, lost
    const DiskImage second = replayer.state(state(5, 7, TailPolicy::kNone));
    CHECK(sector(second, 1) == 0x11);
    CHECK(sector(second, 3) == 0x12);
    CHECK(sector(second, 4) == 0x13);  // FUA
    CHECK(sector(second, 5) == 0);
    const DiskImage whole = replayer.finish();
    CHECK(sector(whole, 8) == 0x14);
    CHECK(sector(whole, 9) == 0);  // beyond the limit
}

TEST_CASE("a saved state reads back byte for byte, holes and all") {
    TempDir dir;
    std::vector<uint8_t> bytes(64 * 1024, 0);
    bytes[5000] = 7;
    bytes[64 * 1024 - 1] = 9;
    DiskImage image(bytes);
    image.write(100, "record");
    std::string error;
    REQUIRE(image.save(dir.path() + "/state.img", &error));
    auto loaded = DiskImage::load(dir.path() + "/state.img", &error);
    REQUIRE(loaded);
    // Compared whole, not printed: 64 KiB in a TAP line helps nobody.
    CHECK((loaded->bytes() == image.bytes()));
    CHECK(loaded->bytes()[103] == 'o');
}
