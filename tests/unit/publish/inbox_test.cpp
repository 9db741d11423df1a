// The publisher's Inbox: whatever is posted, from any thread, wakes the
// waiter and is taken in one go, in order, and only once.
#include "publish/inbox.h"

#include <catch2/catch.hpp>
#include <chrono>
#include <future>
#include <thread>

using namespace std::chrono_literals;
using outpost::Status;
using outpost::StatusCode;
using outpost::publish::Inbox;
using outpost::publish::LinkEvent;
using outpost::publish::Mail;
using outpost::publish::MarkReport;
using outpost::publish::PublishOutcome;

namespace {

LinkEvent outcome(uint64_t tag, PublishOutcome::Kind kind) {
    LinkEvent event;
    event.kind = LinkEvent::Kind::kOutcome;
    event.outcome.tag = tag;
    event.outcome.kind = kind;
    return event;
}

LinkEvent loss(const std::string& cause) {
    LinkEvent event;
    event.kind = LinkEvent::Kind::kConnectionLost;
    event.cause = cause;
    return event;
}

}  // namespace

TEST_CASE("one wait takes everything posted, link events in their order") {
    Inbox inbox;
    inbox.post_link_event(outcome(1, PublishOutcome::Kind::kAcked));
    inbox.post_marks(MarkReport{{10, 11}, Status::ok()});
    inbox.post_link_event(loss("gone"));
    inbox.post_link_event(outcome(2, PublishOutcome::Kind::kLost));
    inbox.post_commit();

    Mail mail = inbox.wait(0ms);
    CHECK(mail.committed);
    CHECK_FALSE(mail.stop);
    REQUIRE(mail.link_events.size() == 3);
    CHECK(mail.link_events[0].outcome.tag == 1);
    CHECK(mail.link_events[1].kind == LinkEvent::Kind::kConnectionLost);
    CHECK(mail.link_events[1].cause == "gone");
    CHECK(mail.link_events[2].outcome.kind == PublishOutcome::Kind::kLost);
    REQUIRE(mail.marks.size() == 1);
    CHECK(mail.marks[0].ids == std::vector<int64_t>{10, 11});

    CHECK(inbox.wait(0ms).empty());  // taken once
}

TEST_CASE("commits posted many times arrive as one wake-up") {
    Inbox inbox;
    for (int i = 0; i < 100; ++i) inbox.post_commit();
    Mail mail = inbox.wait(0ms);
    CHECK(mail.committed);
    CHECK(mail.link_events.empty());
    CHECK(inbox.wait(0ms).empty());
}

TEST_CASE("a wait with nothing posted returns empty mail after its timeout") {
    Inbox inbox;
    CHECK(inbox.wait(0ms).empty());
    CHECK(inbox.wait(20ms).empty());
}

TEST_CASE("a post from another thread wakes a waiter long before its timeout") {
    Inbox inbox;
    // The waiter would sleep for an hour; the test ends only if the post wakes it.
    auto waiter = std::async(std::launch::async, [&] { return inbox.wait(std::chrono::hours(1)); });
    std::thread poster([&] {
        inbox.post_marks(MarkReport{{7}, Status::error(StatusCode::kFenced, "x")});
    });
    Mail mail = waiter.get();
    poster.join();
    REQUIRE(mail.marks.size() == 1);
    CHECK(mail.marks[0].status.code() == StatusCode::kFenced);
}

TEST_CASE("stop is delivered with whatever came before it") {
    Inbox inbox;
    inbox.post_link_event(outcome(3, PublishOutcome::Kind::kRefused));
    inbox.post_stop();
    auto waiter = std::async(std::launch::async, [&] { return inbox.wait(std::chrono::hours(1)); });
    Mail mail = waiter.get();
    CHECK(mail.stop);
    REQUIRE(mail.link_events.size() == 1);
    CHECK(mail.link_events[0].outcome.kind == PublishOutcome::Kind::kRefused);
}
