// Per-device order and "SENT only on its own success": a refused row holds
// back the later rows of its device (not of other devices) until its retry
// is acknowledged, and a row is marked SENT only after its own PUBACK. The
// publisher runs on a manual clock, so a retry comes exactly when the test
// moves the clock.
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "publisher_rig.h"

using namespace std::chrono_literals;
using namespace outpost::testing;  // the rig, the scripted broker, eventually()

namespace {

constexpr int64_t kRetryMs = 1000;

outpost::PublisherOptions manual_clock_options(const ManualClock& clock, int window) {
    auto options = quick_publisher_options();
    options.clock = &clock;
    options.max_in_flight = window;
    options.retry_initial = std::chrono::milliseconds(kRetryMs);
    options.retry_max = std::chrono::milliseconds(kRetryMs);
    return options;
}

// Seqs of `device` in the order the broker saw them, repeats included.
std::vector<int64_t> seqs_of(const std::vector<PublishRecord>& publishes,
                             const std::string& device) {
    std::vector<int64_t> seqs;
    for (const auto& record : publishes) {
        if (record.device_id == device) seqs.push_back(record.seq);
    }
    return seqs;
}

// Position of the `nth` (0-based) publish of `event_id`, or -1.
int position_of(const std::vector<PublishRecord>& publishes, const std::string& event_id,
                int nth = 0) {
    for (size_t i = 0; i < publishes.size(); ++i) {
        if (publishes[i].event_id == event_id && nth-- == 0) return static_cast<int>(i);
    }
    return -1;
}

}  // namespace

TEST_CASE("a refused row holds back its device's later rows until its retry is acknowledged") {
    ManualClock clock;
    PublisherRig rig;
    rig.broker.set_policy([refused = false](const PublishRecord& record) mutable {
        if (record.device_id == "pump-a" && record.seq == 1 && !refused) {
            refused = true;
            return Verdict::kRefuse;
        }
        return Verdict::kAck;
    });
    const auto a1 = rig.record("pump-a");
    const auto a2 = rig.record("pump-a");
    const auto a3 = rig.record("pump-a");
    const auto b1 = rig.record("pump-b");
    const auto b2 = rig.record("pump-b");
    rig.start(manual_clock_options(clock, 1));

    // pump-b's rows come after pump-a's in the outbox: once they are SENT,
    // the publisher has passed a2 and a3 and held them back.
    REQUIRE(rig.row_in_state(b2.event_id, kSent));
    REQUIRE(rig.row_in_state(b1.event_id, kSent));
    CHECK(rig.row(a1.event_id).attempts == 1);
    CHECK(seqs_of(rig.broker.publishes(), "pump-a") == std::vector<int64_t>{1});

    clock.advance(kRetryMs);  // a1's retry is due
    REQUIRE(rig.row_in_state(a3.event_id, kSent));
    CHECK(rig.row(a1.event_id).state == kSent);
    CHECK(rig.row(a2.event_id).state == kSent);
    const auto publishes = rig.broker.publishes();
    CHECK(seqs_of(publishes, "pump-a") == std::vector<int64_t>{1, 1, 2, 3});
    CHECK(seqs_of(publishes, "pump-b") == std::vector<int64_t>{1, 2});
}

TEST_CASE("after a refusal no new row of that device starts, even with room in the window") {
    ManualClock clock;
    PublisherRig rig;
    ScriptedBroker& broker = rig.broker;
    broker.set_policy([](const PublishRecord&) { return Verdict::kHold; });
    const auto a1 = rig.record("pump-a");
    const auto a2 = rig.record("pump-a");
    const auto b1 = rig.record("pump-b");
    rig.start(manual_clock_options(clock, 8));
    REQUIRE(broker.wait_until([&] { return broker.held_locked() == 3; }));

    // a2 was in flight before a1's refusal came back: it cannot be recalled
    // (publisher.h says so). Rows of pump-a recorded from now on must wait.
    broker.set_policy([](const PublishRecord&) { return Verdict::kAck; });
    REQUIRE(broker.release(Verdict::kRefuse, [&](const PublishRecord& record) {
        return record.event_id == a1.event_id;
    }) == 1);
    REQUIRE(outpost::testing::eventually([&] { return rig.row(a1.event_id).attempts == 1; }));
    broker.release_all(Verdict::kAck);
    REQUIRE(rig.row_in_state(a2.event_id, kSent));
    REQUIRE(rig.row_in_state(b1.event_id, kSent));

    const auto a3 = rig.record("pump-a");
    const auto b2 = rig.record("pump-b");
    REQUIRE(rig.row_in_state(b2.event_id, kSent));  // the window had room; b went on
    CHECK(broker.publishes_of(a3.event_id).empty());
    CHECK(rig.row(a1.event_id).state == kPending);

    clock.advance(kRetryMs);
    REQUIRE(rig.row_in_state(a3.event_id, kSent));
    CHECK(rig.row(a1.event_id).state == kSent);
    const auto publishes = broker.publishes();
    const int a1_retry = position_of(publishes, a1.event_id, 1);
    REQUIRE(a1_retry >= 0);
    CHECK(position_of(publishes, a3.event_id) > a1_retry);
    CHECK(broker.publishes_of(a1.event_id).size() == 2);
}

TEST_CASE("a row is marked SENT only after its own acknowledgement") {
    ManualClock clock;
    PublisherRig rig;
    ScriptedBroker& broker = rig.broker;
    broker.set_policy([](const PublishRecord&) { return Verdict::kHold; });
    std::vector<std::string> ids;
    for (int i = 0; i < 4; ++i) ids.push_back(rig.record("pump-" + std::to_string(i)).event_id);
    rig.start(manual_clock_options(clock, 4));
    REQUIRE(broker.wait_until([&] { return broker.held_locked() == 4; }));

    // The third PUBACK comes first: only its row is marked.
    broker.release(Verdict::kAck,
                   [&](const PublishRecord& record) { return record.event_id == ids[2]; });
    REQUIRE(rig.row_in_state(ids[2], kSent));
    for (int i : {0, 1, 3}) CHECK(rig.row(ids[i]).state == kPending);

    // A refusal counts an attempt on its own row only.
    broker.release(Verdict::kRefuse,
                   [&](const PublishRecord& record) { return record.event_id == ids[0]; });
    REQUIRE(outpost::testing::eventually([&] { return rig.row(ids[0]).attempts == 1; }));
    CHECK(rig.row(ids[0]).state == kPending);

    // The connection goes: the two rows still in flight get no verdict and
    // are published again on the next connection, still PENDING.
    broker.drop_connection(ScriptedBroker::LossOrder::kOutcomesFirst);
    // The reconnect waits for its backoff on the publisher's (manual) clock;
    // a retry would wait far longer.
    REQUIRE(outpost::testing::eventually([&] { return !rig.status().connected; }));
    clock.advance(quick_publisher_options().endpoint.reconnect_max.count());
    REQUIRE(broker.wait_until(
        [&] { return broker.connects_locked() == 2 && broker.held_locked() == 2; }));
    for (int i : {1, 3}) {
        CHECK(rig.row(ids[i]).state == kPending);
        CHECK(rig.row(ids[i]).attempts == 0);
        CHECK(broker.publishes_of(ids[i]).size() == 2);
    }

    broker.set_policy([](const PublishRecord&) { return Verdict::kAck; });
    broker.release_all(Verdict::kAck);
    clock.advance(kRetryMs);
    for (const std::string& id : ids) REQUIRE(rig.row_in_state(id, kSent));
    CHECK(broker.publishes_of(ids[2]).size() == 1);  // SENT rows are not published again
    // Counted once the publisher thread has the marks' commit, after the rows.
    REQUIRE(eventually([&] { return rig.status().sent >= 4; }));
    CHECK(rig.status().sent == 4);
}
