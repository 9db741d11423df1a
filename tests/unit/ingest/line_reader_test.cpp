// Newline framing on a socket (ingest/line_io.h): lines split over reads or
// packed into one come out one by one; a line over the limit is kTooLong
// (the server's request_too_large); silence is kTimedOut; a closed peer
// is kClosed; a readable wake descriptor is kStopping.
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "ingest/line_io.h"

using namespace std::chrono_literals;
using outpost::ingest::LineReader;
using Outcome = outpost::ingest::LineReader::Outcome;

namespace {

// Both ends of a connected stream socket pair, closed at the end.
struct SocketPair {
    SocketPair() { REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0); }
    ~SocketPair() {
        close_writer();
        ::close(fds[0]);
    }
    void send(const std::string& bytes) const {
        REQUIRE(outpost::ingest::write_all(fds[1], bytes));
    }
    void close_writer() {
        if (fds[1] >= 0) ::close(fds[1]);
        fds[1] = -1;
    }
    int reader() const { return fds[0]; }
    int fds[2] = {-1, -1};
};

// Generous: only a bound against a hang; the data is already there.
constexpr std::chrono::milliseconds kWait = 10s;

}  // namespace

TEST_CASE("lines packed together or split over writes come out one at a time") {
    SocketPair pair;
    LineReader reader(pair.reader(), 100);
    std::string line;
    pair.send("first\nsecond\nthi");
    CHECK(reader.next(line, kWait) == Outcome::kLine);
    CHECK(line == "first");
    CHECK(reader.next(line, kWait) == Outcome::kLine);
    CHECK(line == "second");
    pair.send("rd\n");
    CHECK(reader.next(line, kWait) == Outcome::kLine);
    CHECK(line == "third");
}

TEST_CASE("a line over the limit is too long, with or without its newline") {
    SocketPair pair;
    LineReader reader(pair.reader(), 10);
    std::string line;
    SECTION("the newline never comes") {
        pair.send(std::string(11, 'x'));
        CHECK(reader.next(line, kWait) == Outcome::kTooLong);
    }
    SECTION("the newline comes too late") {
        pair.send(std::string(11, 'x') + "\n");
        CHECK(reader.next(line, kWait) == Outcome::kTooLong);
    }
    SECTION("exactly the limit is a line") {
        pair.send(std::string(10, 'x') + "\n");
        CHECK(reader.next(line, kWait) == Outcome::kLine);
        CHECK(line.size() == 10);
    }
}

TEST_CASE("silence is a timeout, and a closed peer ends the stream") {
    SocketPair pair;
    LineReader reader(pair.reader(), 100);
    std::string line;
    CHECK(reader.next(line, 10ms) == Outcome::kTimedOut);
    pair.send("partial");
    pair.close_writer();
    CHECK(reader.next(line, kWait) == Outcome::kClosed);  // the partial line is dropped
}

TEST_CASE("a readable wake descriptor stops the reader, after the lines it already holds") {
    SocketPair pair;
    SocketPair wake;
    LineReader reader(pair.reader(), 100, wake.reader());
    std::string line;
    pair.send("one\ntwo\n");
    CHECK(reader.next(line, kWait) == Outcome::kLine);  // reads both, returns "one"
    wake.send("x");
    CHECK(reader.next(line, kWait) == Outcome::kLine);
    CHECK(line == "two");
    pair.send("three\n");  // not read yet: the stop comes first
    CHECK(reader.next(line, kWait) == Outcome::kStopping);
}
