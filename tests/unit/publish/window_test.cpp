// The publish window's rules (publish/window.h): a busy row is never started
// twice (W1), the window holds at most its capacity (W2), and a device with
// a refused row is blocked: its rows wait, its retries go one at a time,
// lowest id first, and the block lifts with the fetch position to resume
// from (W3). broken_invariant() is checked after every step.
#include "publish/window.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

using outpost::publish::Flight;
using outpost::publish::Window;
using outpost::store::OutboxRow;

namespace {

OutboxRow row(int64_t id, const std::string& device) {
    OutboxRow row;
    row.id = id;
    row.device_id = device;
    row.envelope = "{\"id\":" + std::to_string(id) + "}";
    return row;
}

// Refuses the flight of `tag`: it waits for a retry due at `due_ms`.
void refuse(Window& window, uint64_t tag, int64_t due_ms) {
    std::optional<Flight> flight = window.land(tag);
    REQUIRE(flight.has_value());
    window.retry(*flight, due_ms);
}

std::vector<int64_t> ids_of(const std::vector<OutboxRow>& rows) {
    std::vector<int64_t> ids;
    for (const OutboxRow& row : rows) ids.push_back(row.id);
    return ids;
}

#define REQUIRE_INVARIANTS(window) REQUIRE((window).broken_invariant() == "")

}  // namespace

TEST_CASE("a row stays busy from its publish until its SENT mark") {
    Window window(4);
    const uint64_t tag = window.start(row(1, "pump-a"), 0);
    CHECK(window.busy(1));
    CHECK(window.payload(tag) == "{\"id\":1}");
    CHECK(window.in_flight() == 1);
    REQUIRE_INVARIANTS(window);

    std::optional<Flight> flight = window.land(tag);
    REQUIRE(flight.has_value());
    CHECK(flight->row.id == 1);
    CHECK(window.acknowledged(*flight) == 0);  // no block was lifted
    CHECK(window.in_flight() == 0);
    CHECK(window.busy(1));  // acknowledged, its mark not yet committed
    REQUIRE_INVARIANTS(window);
    window.marked(1);
    CHECK_FALSE(window.busy(1));
    REQUIRE_INVARIANTS(window);
}

TEST_CASE("an unknown or abandoned tag lands nothing") {
    Window window(2);
    CHECK_FALSE(window.land(99).has_value());
    const uint64_t tag = window.start(row(1, "pump-a"), 0);
    CHECK(window.abandon_flights(5) == 1);
    CHECK_FALSE(window.land(tag).has_value());
    CHECK_FALSE(window.busy(1));
    REQUIRE_INVARIANTS(window);
}

TEST_CASE("the window is full at its capacity, and a smaller capacity applies at once") {
    Window window(3);
    for (int64_t id = 1; id <= 3; ++id) window.start(row(id, "pump-" + std::to_string(id)), 0);
    CHECK(window.full());
    window.set_capacity(2);
    CHECK(window.full());
    window.set_capacity(5);
    CHECK_FALSE(window.full());
    REQUIRE_INVARIANTS(window);
}

TEST_CASE("a cancelled publish is no longer busy or in flight") {
    Window window(2);
    const uint64_t tag = window.start(row(7, "pump-a"), 0);
    Flight back = window.cancel(tag);
    CHECK(back.row.id == 7);
    CHECK_FALSE(window.busy(7));
    CHECK(window.in_flight() == 0);
    REQUIRE_INVARIANTS(window);
}

TEST_CASE("a refused row blocks its device and no other") {
    Window window(4);
    const uint64_t tag = window.start(row(1, "pump-a"), 0);
    window.start(row(2, "pump-b"), 0);
    refuse(window, tag, 100);
    CHECK(window.blocked("pump-a"));
    CHECK_FALSE(window.blocked("pump-b"));
    CHECK(window.busy(1));
    CHECK(window.retrying() == 1);
    CHECK(window.next_due() == 100);
    REQUIRE_INVARIANTS(window);
}

TEST_CASE("a retry is given only when due, and only with room in the window") {
    Window window(1);
    const uint64_t tag = window.start(row(1, "pump-a"), 0);
    refuse(window, tag, 100);
    CHECK(window.take_due(99).empty());
    window.start(row(2, "pump-b"), 0);  // the window is full now
    CHECK(window.take_due(100).empty());
    std::optional<Flight> other = window.land(1 + tag);
    REQUIRE(other.has_value());
    window.acknowledged(*other);
    const std::vector<OutboxRow> due = window.take_due(100);
    CHECK(ids_of(due) == std::vector<int64_t>{1});
    REQUIRE_INVARIANTS(window);
}

TEST_CASE("a blocked device's retries go one at a time, lowest id first") {
    Window window(8);
    const uint64_t first = window.start(row(1, "pump-a"), 0);
    const uint64_t second = window.start(row(2, "pump-a"), 0);
    refuse(window, second, 10);
    refuse(window, first, 50);
    // Row 1 is due later than row 2, but it is the lower id: it goes first.
    CHECK(window.next_due() == 50);
    CHECK(window.take_due(40).empty());
    std::vector<OutboxRow> due = window.take_due(50);
    REQUIRE(ids_of(due) == std::vector<int64_t>{1});
    const uint64_t retry = window.start(due[0], 50, /*retry=*/true);
    REQUIRE_INVARIANTS(window);
    // While row 1's retry is in flight, row 2 waits, whatever its due time.
    CHECK(window.take_due(1000).empty());
    CHECK_FALSE(window.next_due().has_value());

    std::optional<Flight> landed = window.land(retry);
    REQUIRE(landed.has_value());
    CHECK(window.acknowledged(*landed) == 0);  // row 2 still waits: still blocked
    CHECK(window.blocked("pump-a"));
    due = window.take_due(1000);
    CHECK(ids_of(due) == std::vector<int64_t>{2});
    REQUIRE_INVARIANTS(window);
}

TEST_CASE("the block lifts with the last retry and says where to fetch again") {
    Window window(8);
    const uint64_t tag = window.start(row(5, "pump-a"), 0);
    refuse(window, tag, 0);
    std::vector<OutboxRow> due = window.take_due(0);
    REQUIRE(due.size() == 1);
    SECTION("acknowledged") {
        std::optional<Flight> landed = window.land(window.start(due[0], 0, true));
        REQUIRE(landed.has_value());
        CHECK(window.acknowledged(*landed) == 5);
        CHECK(window.busy(5));  // until its mark
    }
    SECTION("gone DEAD") {
        std::optional<Flight> landed = window.land(window.start(due[0], 0, true));
        REQUIRE(landed.has_value());
        CHECK(window.released(*landed) == 5);
        CHECK_FALSE(window.busy(5));
    }
    CHECK_FALSE(window.blocked("pump-a"));
    REQUIRE_INVARIANTS(window);
}

TEST_CASE("a connection loss voids every flight: plain rows are free, retries due at once") {
    Window window(8);
    window.start(row(3, "pump-a"), 0);
    window.start(row(4, "pump-b"), 0);
    const uint64_t refused = window.start(row(2, "pump-c"), 0);
    refuse(window, refused, 0);
    std::vector<OutboxRow> due = window.take_due(0);
    REQUIRE(due.size() == 1);
    window.start(due[0], 0, true);

    CHECK(window.abandon_flights(70) == 3);  // the lowest plain row, to fetch again
    CHECK(window.in_flight() == 0);
    CHECK_FALSE(window.busy(3));
    CHECK_FALSE(window.busy(4));
    CHECK(window.busy(2));            // still waiting for its retry
    CHECK(window.blocked("pump-c"));  // and still holding its device
    CHECK(window.next_due() == 70);   // due at once
    REQUIRE_INVARIANTS(window);
}

TEST_CASE("clear forgets everything") {
    Window window(4);
    const uint64_t tag = window.start(row(1, "pump-a"), 0);
    refuse(window, tag, 0);
    window.start(row(2, "pump-b"), 0);
    window.clear();
    CHECK(window.in_flight() == 0);
    CHECK(window.retrying() == 0);
    CHECK_FALSE(window.busy(1));
    CHECK_FALSE(window.blocked("pump-a"));
    REQUIRE_INVARIANTS(window);
}

// A random walk through the publisher's legal calls, the way
// publisher_flow.cpp makes them: the invariants hold after every step, no
// busy row is started, and a blocked device starts nothing but its retry.
TEST_CASE("the invariants hold through a random walk of legal calls") {
    std::mt19937 random(20240611);
    Window window(4);
    const std::vector<std::string> devices = {"pump-a", "pump-b", "pump-c"};
    int64_t next_id = 1;
    int64_t now = 0;
    std::vector<uint64_t> tags;  // issued, maybe landed or abandoned since
    std::set<int64_t> acked;     // awaiting marks
    std::map<std::string, int> done;
    for (int step = 0; step < 5000; ++step) {
        switch (random() % 6) {
            case 0: {  // fill with a new row of a device that is not blocked
                const std::string& device = devices[random() % devices.size()];
                if (window.full() || window.blocked(device)) break;
                tags.push_back(window.start(row(next_id++, device), now));
                done["started"]++;
                break;
            }
            case 1:
            case 2: {  // an outcome for some tag
                if (tags.empty()) break;
                const size_t pick = random() % tags.size();
                const uint64_t tag = tags[pick];
                tags.erase(tags.begin() + static_cast<std::ptrdiff_t>(pick));
                std::optional<Flight> flight = window.land(tag);
                if (!flight) break;
                switch (random() % 4) {
                    case 0:
                        window.acknowledged(*flight);
                        acked.insert(flight->row.id);
                        done["acknowledged"]++;
                        break;
                    case 1:
                        window.retry(*flight, now + static_cast<int64_t>(random() % 50));
                        done["refused"]++;
                        break;
                    case 2:
                        window.released(*flight);
                        done["dead"]++;
                        break;
                    default:  // lost: a retry goes back, a plain row is free
                        if (flight->retry) {
                            window.retry(*flight, now);
                        } else {
                            window.released(*flight);
                        }
                        done["lost"]++;
                }
                break;
            }
            case 3: {  // retries that are due
                for (OutboxRow& due : window.take_due(now)) {
                    if (window.busy(due.id) || !window.blocked(due.device_id)) {
                        FAIL("step " << step << ": take_due gave row " << due.id
                                     << " busy or unblocked");
                    }
                    tags.push_back(window.start(std::move(due), now, true));
                    done["retried"]++;
                }
                break;
            }
            case 4:  // marks committed
                for (int64_t id : acked) window.marked(id);
                acked.clear();
                break;
            default:
                now += static_cast<int64_t>(random() % 20);
                if (random() % 20 == 0) {
                    window.abandon_flights(now);
                    done["abandoned"]++;
                }
        }
        const std::string broken = window.broken_invariant();
        if (!broken.empty() || window.in_flight() > window.capacity()) {
            FAIL("step " << step << ": " << broken << " (in flight " << window.in_flight() << ")");
        }
    }
    // The walk went through every kind of call.
    for (const char* kind :
         {"started", "acknowledged", "refused", "dead", "lost", "retried", "abandoned"}) {
        INFO(kind);
        CHECK(done[kind] > 10);
    }
}

// The publisher never makes these calls; they show that broken_invariant()
// does look.
TEST_CASE("broken_invariant names what a misuse broke") {
    Window window(4);
    const uint64_t tag = window.start(row(1, "pump-a"), 0);
    SECTION("a row in flight marked SENT") {
        window.marked(1);
        CHECK(window.broken_invariant() == "W1: row 1 is in flight but not busy");
    }
    SECTION("a row in flight put up for a retry as well") {
        window.retry(row(1, "pump-a"), 0);
        CHECK(window.broken_invariant() == "W1: row 1 is in flight and retrying at once");
    }
    SECTION("a healthy window") {
        CHECK(window.broken_invariant().empty());
        CHECK(window.land(tag).has_value());
    }
}
