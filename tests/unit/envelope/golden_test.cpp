// The envelope's bytes are pinned. Alarm envelopes are rebuilt from their
// rows on every read, so a change in how the store formats a number, escapes
// a string or writes a date would change what pending rows publish after an
// upgrade, under eventIds that consumers may have seen already. Each case of
// golden_cases.h must build exactly the bytes of golden/<name>.json (plus one
// final line feed in the file), through the builder and through a real store.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <set>
#include <sstream>
#include <string>

#include "golden_cases.h"
#include "outpost/store.h"
#include "store/envelope.h"
#include "store/outbox.h"
#include "store/store_core.h"
#include "store_fixture.h"
#include "temp_dir.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

std::string golden_path(const std::string& name) {
    return std::string(OUTPOST_GOLDEN_DIR) + "/" + name + ".json";
}

// Empty when `built` + "\n" is the golden file of `name`; else a one-line
// account of the first difference, and the built bytes are left in the
// build directory for a diff.
std::string golden_difference(const std::string& name, const std::string& built) {
    const std::string difference =
        difference_from_file(golden_path(name), built + "\n",
                             std::string(OUTPOST_BUILD_DIR) + "/" + name + ".actual.json");
    if (difference.empty()) return "";
    return difference +
           " . Only if the change is intended (pending rows will publish the new bytes after an "
           "upgrade), copy the built file over the golden one.";
}

// A store whose clock and gateway give `context` (but for the eventId, which
// the store draws itself).
struct StoreAt {
    TempDir dir;
    ManualClock clock;
    StoreOptions options;
    std::unique_ptr<Store> store;

    explicit StoreAt(const store::EnvelopeContext& context) {
        clock.reboot(context.boot_id);  // uptime 0
        clock.advance(context.uptime_ms);
        clock.jump_wall(-clock.wall_ms());  // two steps: no overflow at either int64 end
        clock.jump_wall(context.wall_ms);
        options = test_options(&clock);
        options.gateway_id = context.gateway_id;
        store = open_store(dir.file("o.db"), options);
    }

    // The envelope of `event_id` as the publisher reads it.
    std::string read_envelope(const std::string& event_id) {
        store.reset();
        auto core = store::StoreCore::open(dir.file("o.db"), options);
        if (!core) FAIL(core.status().to_string());
        auto reader = (*core)->open_reader();
        if (!reader) FAIL(reader.status().to_string());
        auto row = store::find_event(*reader, event_id);
        if (!row) FAIL(row.status().to_string());
        return row->envelope;
    }
};

std::string with_golden_event_id(std::string envelope, const std::string& event_id) {
    const std::size_t at = envelope.find(event_id);
    if (at != std::string::npos) envelope.replace(at, event_id.size(), kGoldenEventId);
    return envelope;
}

}  // namespace

TEST_CASE("the builder writes exactly the golden bytes of every case") {
    for (const GoldenCase& golden : golden_cases()) {
        INFO("case " << golden.name);
        CHECK(golden_difference(golden.name, golden.build()) == "");
    }
}

TEST_CASE("a real store, recording and reading back, publishes exactly the golden bytes") {
    int through_store = 0;
    for (const GoldenCase& golden : golden_cases()) {
        if (!golden.through_store) continue;
        INFO("case " << golden.name);
        StoreAt at(golden.context);
        std::string event_id;
        if (golden.alarm) {
            auto recorded = at.store->record_alarm(*golden.alarm);
            REQUIRE_OK(recorded);
            event_id = recorded->event_id;
        } else {
            auto recorded = at.store->transact(
                [&](Transaction& tx) { return tx.enqueue(*golden.event).status(); });
            REQUIRE_OK(recorded);
            event_id = recorded->at(0).event_id;
        }
        const std::string read = at.read_envelope(event_id);
        CHECK(read.find(event_id) != std::string::npos);
        CHECK(golden_difference(golden.name, with_golden_event_id(read, event_id)) == "");
        ++through_store;
    }
    CHECK(through_store >= 20);
}

TEST_CASE("every golden file belongs to a case") {
    // A case renamed or removed must take its file along, or the file stops
    // pinning anything while looking as if it did.
    std::set<std::string> names;
    for (const GoldenCase& golden : golden_cases()) names.insert(golden.name + ".json");
    std::set<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(OUTPOST_GOLDEN_DIR)) {
        files.insert(entry.path().filename().string());
    }
    CHECK(files == names);
}

TEST_CASE("doubles are written in the shortest form that reads back to the same double") {
    // The pinned forms, also documented at format_json_double.
    CHECK(store::format_json_double(97.5) == "97.5");
    CHECK(store::format_json_double(100.0) == "100");
    CHECK(store::format_json_double(0.1) == "0.1");
    CHECK(store::format_json_double(0.1 + 0.2) == "0.30000000000000004");
    CHECK(store::format_json_double(-273.15) == "-273.15");
    CHECK(store::format_json_double(1e21) == "1e+21");
    CHECK(store::format_json_double(1e-7) == "1e-07");
    CHECK(store::format_json_double(-0.0) == "-0");
    CHECK(store::format_json_double(123456789012.0) == "123456789012");
    CHECK(store::format_json_double(-8589515981063002112.0) == "-8589515981063002112");
    CHECK(store::format_json_double(std::numeric_limits<double>::max()) ==
          "1.7976931348623157e+308");
    CHECK(store::format_json_double(std::numeric_limits<double>::denorm_min()) == "5e-324");

    // The property, over random bit patterns: the text reads back to the
    // very same double, and is never longer than the shortest exponent form
    // that does (printf's %.*e at the fewest digits that read back).
    std::mt19937_64 random(20240607);
    int checked = 0;
    while (checked < 20000) {
        const std::uint64_t bits = random();
        double value;
        std::memcpy(&value, &bits, sizeof value);
        if (!std::isfinite(value)) continue;
        const std::string text = store::format_json_double(value);
        INFO("bits " << bits << " text " << text);
        const double back = std::strtod(text.c_str(), nullptr);
        REQUIRE(std::memcmp(&back, &value, sizeof value) == 0);
        char exponent_form[64];
        for (int digits = 1; digits <= 17; ++digits) {
            std::snprintf(exponent_form, sizeof exponent_form, "%.*e", digits - 1, value);
            if (std::strtod(exponent_form, nullptr) == value) break;
        }
        INFO("shortest exponent form " << exponent_form);
        CHECK(text.size() <= std::strlen(exponent_form));
        ++checked;
    }
}
