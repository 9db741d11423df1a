// Several requests in flight on one connection: answers that come back in
// any order reach their own callers (matched by opaque), the in-flight bound
// holds, and a stream that breaks fails every outstanding request and lets
// none of them succeed. The "server" is a scripted loopback listener on a
// real socket (rocketmq_scripted_server.h).
#include <poll.h>

#include <algorithm>
#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "rocketmq/connection.h"
#include "rocketmq/frame.h"
#include "rocketmq_scripted_server.h"

namespace {

using namespace std::chrono_literals;
using outpost::Result;
using outpost::StatusCode;
using outpost::rocketmq::Connection;
using outpost::rocketmq::RemotingCommand;
using namespace outpost::rocketmq::testing;

RemotingCommand numbered(int n) {
    RemotingCommand request;
    request.code = 105;
    request.ext_fields["n"] = std::to_string(n);
    return request;
}

// Runs `count` invokes at once, request i carrying n = i; results by i.
std::vector<Result<RemotingCommand>> invoke_concurrently(Connection& connection, int count,
                                                         std::chrono::milliseconds timeout) {
    std::vector<Result<RemotingCommand>> results(
        count, Result<RemotingCommand>(outpost::Status::error(StatusCode::kInternal, "not run")));
    std::vector<std::thread> callers;
    for (int i = 0; i < count; ++i) {
        callers.emplace_back([&, i] { results[i] = connection.invoke(numbered(i), timeout); });
    }
    for (std::thread& caller : callers) caller.join();
    return results;
}

}  // namespace

TEST_CASE("requests in flight together get their own answers, however the server orders them") {
    constexpr int kCallers = 6;
    ScriptedServer server([](int fd, int) {
        // All requests must be on the wire before the first answer: a
        // connection that sent one request at a time would never get here.
        std::vector<RemotingCommand> requests(kCallers);
        for (RemotingCommand& request : requests) {
            if (!read_request(fd, &request)) return;
        }
        std::reverse(requests.begin(), requests.end());
        for (const RemotingCommand& request : requests) {
            write_all(fd,
                      response_frame(request.opaque, 0, "answer " + request.ext_fields.at("n")));
        }
        read_request(fd, &requests[0]);  // hold until the client is done
    });
    Connection connection(server.address(), kCallers);
    const auto results = invoke_concurrently(connection, kCallers, 5000ms);
    for (int i = 0; i < kCallers; ++i) {
        INFO("caller " << i);
        REQUIRE(results[i].is_ok());
        CHECK(results[i]->body == "answer " + std::to_string(i));
    }
    CHECK(server.accepted() == 1);
}

TEST_CASE("no more requests than max_in_flight are ever unanswered on the wire") {
    constexpr int kBound = 2;
    std::atomic<int> most_unanswered{0};
    ScriptedServer server([&](int fd, int) {
        RemotingCommand request;
        std::vector<RemotingCommand> unanswered;
        for (;;) {
            // Read what arrives; answer only once nothing more comes, so the
            // client's bound is the only thing that limits how many pile up.
            pollfd more{fd, POLLIN, 0};
            if (poll(&more, 1, 200) > 0) {
                if (!read_request(fd, &request)) return;
                unanswered.push_back(request);
                most_unanswered = std::max<int>(most_unanswered, unanswered.size());
                continue;
            }
            for (const RemotingCommand& waiting : unanswered) {
                write_all(fd, response_frame(waiting.opaque, 0, waiting.ext_fields.at("n")));
            }
            unanswered.clear();
        }
    });
    Connection connection(server.address(), kBound);
    const auto results = invoke_concurrently(connection, 6, 10000ms);
    for (const auto& result : results) REQUIRE(result.is_ok());
    CHECK(most_unanswered >= 1);
    CHECK(most_unanswered <= kBound);
}

TEST_CASE("a stream that breaks with requests in flight fails all of them, none succeeds later") {
    constexpr int kCallers = 4;
    ScriptedServer server([](int fd, int index) {
        std::vector<RemotingCommand> requests(kCallers);
        if (index == 0) {
            for (RemotingCommand& request : requests) {
                if (!read_request(fd, &request)) return;
            }
            // Answer one of them, then the broker dies with three unanswered.
            write_all(fd, response_frame(requests[0].opaque, 0, requests[0].ext_fields["n"]));
            return;
        }
        // A later connection answers whatever it gets, including stale
        // opaques replayed here to prove they match nothing.
        RemotingCommand request;
        while (read_request(fd, &request)) {
            for (std::int32_t stale = 1; stale <= kCallers; ++stale) {
                write_all(fd, response_frame(stale, 0, "stale"));
            }
            write_all(fd, response_frame(request.opaque, 0, "fresh"));
        }
    });
    Connection connection(server.address(), kCallers);
    const auto results = invoke_concurrently(connection, kCallers, 5000ms);
    int answered = 0;
    for (const auto& result : results) {
        if (result.is_ok()) {
            ++answered;
            continue;
        }
        CHECK(result.status().code() == StatusCode::kUnavailable);
    }
    CHECK(answered == 1);
    // The next request goes out on a new stream and gets its own answer, not
    // one meant for a request that failed.
    auto next = connection.invoke(numbered(99), 5000ms);
    REQUIRE(next.is_ok());
    CHECK(next->body == "fresh");
    CHECK(server.accepted() == 2);
}
