// The socket's life: taking over a stale socket file, refusing to steal a
// live one, file mode, client limit, idle timeout, and a stop that finishes
// the request in progress and removes the socket file.
#include <poll.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cerrno>
#include <condition_variable>
#include <fstream>
#include <future>
#include <mutex>
#include <string>

#include "eventually.h"
#include "ingest/line_io.h"
#include "ingest_harness.h"

using outpost::StatusCode;
using outpost::testing::call;
using outpost::testing::error_code;
using outpost::testing::IngestHarness;

namespace {

bool exists(const std::string& path) {
    struct stat info {};
    return ::lstat(path.c_str(), &info) == 0;
}

// Waits until `path` no longer exists, or `limit` passed; returns whether it
// is gone. inotify on the directory wakes the wait at the removal.
bool wait_until_removed(const std::string& path, std::chrono::milliseconds limit) {
    const int watch = ::inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (watch < 0) return false;
    const std::string directory = path.substr(0, path.rfind('/'));
    // Watching before the first look: a removal in between is not missed.
    const bool watching =
        ::inotify_add_watch(watch, directory.c_str(), IN_DELETE | IN_MOVED_FROM) >= 0;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    bool gone = !exists(path);
    while (watching && !gone) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) break;
        pollfd event{watch, POLLIN, 0};
        if (::poll(&event, 1, static_cast<int>(left.count())) > 0) {
            char buffer[4096];
            while (::read(watch, buffer, sizeof buffer) > 0) {
            }
        }
        gone = !exists(path);
    }
    ::close(watch);
    return gone;
}

// Reads one line the server sends on its own (without a request).
std::string unsolicited_line(outpost::ingest::Client& client) {
    outpost::ingest::LineReader reader(client.fd(), 65536);
    std::string line;
    auto outcome = reader.next(line, outpost::testing::kAnswerTimeout);
    return outcome == outpost::ingest::LineReader::Outcome::kLine ? line : "";
}

}  // namespace

TEST_CASE("a stale socket file is replaced and served", "[ingest]") {
    IngestHarness harness({}, {}, false);
    outpost::testing::leave_stale_socket(harness.socket_path);
    REQUIRE(exists(harness.socket_path));
    auto refused = outpost::ingest::Client::connect(harness.socket_path);
    CHECK(refused.status().code() == StatusCode::kUnavailable);

    REQUIRE_OK(harness.start());
    CHECK(call(*harness.connect(), {{"op", "ping"}})["ok"] == true);
}

TEST_CASE("a live socket is refused and its server keeps serving", "[ingest]") {
    IngestHarness harness;
    outpost::ingest::ServerOptions options;
    options.socket_path = harness.socket_path;
    auto second = outpost::ingest::Server::start(*harness.store, options);
    REQUIRE_FALSE(second.is_ok());
    CHECK(second.status().code() == StatusCode::kBusy);
    CHECK(second.status().message().find("another outpostd listens on " + harness.socket_path) !=
          std::string::npos);
    auto client = harness.connect();
    CHECK(call(*client, {{"op", "ping"}})["ok"] == true);
}

TEST_CASE("a file that is not a socket is refused and left alone", "[ingest]") {
    IngestHarness harness({}, {}, false);
    std::ofstream(harness.socket_path) << "keep me\n";
    outpost::Status started = harness.start();
    REQUIRE_FALSE(started.is_ok());
    CHECK(started.code() == StatusCode::kInvalidArgument);
    std::string kept;
    std::getline(std::ifstream(harness.socket_path), kept);
    CHECK(kept == "keep me");
}

TEST_CASE("the socket file gets the configured mode", "[ingest]") {
    outpost::ingest::ServerOptions options;
    SECTION("0660 by default") {
        IngestHarness harness(options);
        struct stat info {};
        REQUIRE(::stat(harness.socket_path.c_str(), &info) == 0);
        CHECK(S_ISSOCK(info.st_mode));
        CHECK((info.st_mode & 07777) == 0660);
    }
    SECTION("0600 when configured") {
        options.socket_mode = 0600;
        IngestHarness harness(options);
        struct stat info {};
        REQUIRE(::stat(harness.socket_path.c_str(), &info) == 0);
        CHECK((info.st_mode & 07777) == 0600);
    }
}

TEST_CASE("a client beyond max_clients is answered busy; a freed slot serves again", "[ingest]") {
    outpost::ingest::ServerOptions options;
    options.max_clients = 2;
    IngestHarness harness(options);
    auto first = harness.connect();
    auto second = harness.connect();
    REQUIRE(call(*first, {{"op", "ping"}})["ok"] == true);
    REQUIRE(call(*second, {{"op", "ping"}})["ok"] == true);

    auto third = harness.connect();
    auto answer = outpost::testing::send_raw(*third, R"({"op":"ping"})");
    CHECK(error_code(answer) == "busy");

    first.reset();
    // The server notices the closed slot asynchronously: wait until it has.
    REQUIRE(outpost::testing::eventually([&] { return harness.server->stats().clients < 2; }));
    auto next = harness.connect();
    CHECK(outpost::testing::send_raw(*next, R"({"op":"ping"})")["ok"] == true);
    CHECK(call(*second, {{"op", "ping"}})["ok"] == true);
}

TEST_CASE("an idle connection is told so and closed", "[ingest]") {
    outpost::ingest::ServerOptions options;
    options.idle_timeout = std::chrono::milliseconds(50);
    IngestHarness harness(options);
    auto client = harness.connect();
    auto line = unsolicited_line(*client);
    INFO(line);
    CHECK(error_code(nlohmann::json::parse(line)) == "timeout");
    auto after = client->exchange(R"({"op":"ping"})", outpost::testing::kAnswerTimeout);
    CHECK(after.status().code() == StatusCode::kUnavailable);
}

TEST_CASE("stop finishes the request in progress, closes idle clients and removes the socket",
          "[ingest]") {
    std::mutex mutex;
    std::condition_variable changed;
    bool entered = false;
    bool release = false;
    // A status provider that holds its request until the test lets it go.
    IngestHarness harness({}, [&] {
        std::unique_lock<std::mutex> lock(mutex);
        entered = true;
        changed.notify_all();
        changed.wait(lock, [&] { return release; });
        return nlohmann::json{{"held", true}};
    });
    auto idle = harness.connect();
    REQUIRE(call(*idle, {{"op", "ping"}})["ok"] == true);
    auto busy = harness.connect();
    auto pending = std::async(std::launch::async, [&] {
        return busy->exchange(R"({"op":"status"})", outpost::testing::kAnswerTimeout);
    });
    {
        std::unique_lock<std::mutex> lock(mutex);
        changed.wait(lock, [&] { return entered; });
    }
    auto stopping = std::async(std::launch::async, [&] { harness.server->stop(); });
    // stop() removes the socket file before it waits for the connections.
    REQUIRE(wait_until_removed(harness.socket_path, std::chrono::seconds(30)));
    {
        std::lock_guard<std::mutex> lock(mutex);
        release = true;
        changed.notify_all();
    }
    stopping.get();
    auto answer = pending.get();
    REQUIRE_OK(answer);
    CHECK(nlohmann::json::parse(*answer)["status"]["held"] == true);
    CHECK(error_code(nlohmann::json::parse(unsolicited_line(*idle))) == "closed");
    CHECK_FALSE(exists(harness.socket_path));
    auto late = outpost::ingest::Client::connect(harness.socket_path);
    CHECK(late.status().code() == StatusCode::kNotFound);
}

TEST_CASE("a client that never reads its answers cannot keep stop from finishing", "[ingest]") {
    outpost::ingest::ServerOptions options;
    options.idle_timeout = std::chrono::milliseconds(200);
    IngestHarness harness(options);
    auto client = harness.connect();
    // Pipeline pings, reading nothing, until the server stops taking them for
    // a second: by then it sits blocked sending answers nobody reads. (Were
    // it only slow, the test would still pass, proving less; it cannot fail
    // because of timing.)
    const std::string ping = "{\"op\":\"ping\"}\n";
    size_t queued = 0;
    for (;;) {
        ssize_t sent = ::send(client->fd(), ping.data(), ping.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
        if (sent > 0) {
            queued += static_cast<size_t>(sent);
            continue;
        }
        if (errno != EAGAIN && errno != EWOULDBLOCK) break;  // the server closed it
        pollfd writable{client->fd(), POLLOUT, 0};
        if (::poll(&writable, 1, 1000) == 0 || (writable.revents & (POLLERR | POLLHUP))) break;
    }
    CHECK(queued > 0);
    harness.server->stop();  // returns: the blocked send times out
    CHECK_FALSE(exists(harness.socket_path));
    CHECK(harness.server->stats().clients == 0);
}
