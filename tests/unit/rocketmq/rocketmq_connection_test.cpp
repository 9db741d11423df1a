// A connection matches responses by opaque, bounds every call by its timeout,
// survives a server that closed it while idle and refuses hostile frames.
// The "server" is a scripted loopback listener in a test thread.
#include <catch2/catch.hpp>
#include <chrono>
#include <string>

#include "rocketmq/connection.h"
#include "rocketmq/frame.h"
#include "rocketmq_scripted_server.h"

namespace {

using namespace std::chrono_literals;
using outpost::StatusCode;
using outpost::rocketmq::Connection;
using outpost::rocketmq::decode_frame;
using outpost::rocketmq::encode_frame;
using outpost::rocketmq::RemotingCommand;
using namespace outpost::rocketmq::testing;

std::string response_to(const RemotingCommand&, std::int32_t opaque, int code,
                        const std::string& body) {
    return response_frame(opaque, code, body);
}

RemotingCommand ping() {
    RemotingCommand request;
    request.code = 105;
    request.ext_fields["topic"] = "t";
    return request;
}

}  // namespace

TEST_CASE("a late response to an abandoned request and server requests are skipped") {
    ScriptedServer server([](int fd, int) {
        RemotingCommand request;
        if (!read_request(fd, &request)) return;
        write_all(fd, response_to(request, request.opaque - 1, 1, "stale"));
        RemotingCommand server_request;  // e.g. a broker notification
        server_request.code = 39;
        server_request.opaque = request.opaque;
        write_all(fd, *encode_frame(server_request));
        write_all(fd, response_to(request, request.opaque, 0, "mine"));
        read_request(fd, &request);  // hold until the client is done
    });
    Connection connection(server.address());
    auto response = connection.invoke(ping(), 2000ms);
    REQUIRE(response.is_ok());
    CHECK(response->body == "mine");
    CHECK(response->code == 0);
}

TEST_CASE("a server that never answers costs the timeout, not a hang") {
    ScriptedServer server([](int fd, int) {
        RemotingCommand request;
        while (read_request(fd, &request)) {
        }
    });
    Connection connection(server.address());
    const auto start = std::chrono::steady_clock::now();
    auto response = connection.invoke(ping(), 300ms);
    const auto took = std::chrono::steady_clock::now() - start;
    REQUIRE_FALSE(response.is_ok());
    CHECK(response.status().code() == StatusCode::kTimeout);
    CHECK(took >= 290ms);  // it waited for the answer; returning at all is the "no hang"
    // The timed-out stream is dropped (its script sees the close), so a late
    // answer can never reach a later call.
    CHECK(server.wait_closed(1, 10s));
}

TEST_CASE("a connection the server closed while idle is replaced on the next call") {
    ScriptedServer server([](int fd, int) {
        RemotingCommand request;
        if (read_request(fd, &request)) {
            write_all(fd, response_to(request, request.opaque, 0, "ok"));
        }
        // then close, as the broker does after 120 s idle
    });
    Connection connection(server.address());
    REQUIRE(connection.invoke(ping(), 2000ms).is_ok());
    REQUIRE(server.wait_closed(1, 10s));  // the server has closed the idle stream
    auto second = connection.invoke(ping(), 2000ms);
    REQUIRE(second.is_ok());
    CHECK(second->body == "ok");
    CHECK(server.accepted() == 2);
}

TEST_CASE("a hostile 20 MiB length from the server is an error, then the next call reconnects") {
    ScriptedServer server([](int fd, int index) {
        RemotingCommand request;
        if (!read_request(fd, &request)) return;
        if (index == 0) {
            write_all(fd, std::string("\x01\x40\x00\x00", 4));  // 20 MiB promised
            read_request(fd, &request);  // until the client gives up and closes
            return;
        }
        write_all(fd, response_to(request, request.opaque, 0, "fine"));
        read_request(fd, &request);
    });
    Connection connection(server.address());
    auto first = connection.invoke(ping(), 2000ms);
    REQUIRE_FALSE(first.is_ok());
    CHECK(first.status().code() == StatusCode::kInvalidArgument);
    CHECK(first.status().message().find("16 MiB") != std::string::npos);
    auto second = connection.invoke(ping(), 2000ms);
    REQUIRE(second.is_ok());
    CHECK(second->body == "fine");
}

TEST_CASE("nobody listening gives kUnavailable quickly") {
    int port = 0;
    {
        ScriptedServer server([](int, int) {});
        port = std::stoi(server.address().substr(10));
    }
    Connection connection("127.0.0.1:" + std::to_string(port));
    auto response = connection.invoke(ping(), 2000ms);
    REQUIRE_FALSE(response.is_ok());
    CHECK(response.status().code() == StatusCode::kUnavailable);
}

TEST_CASE("a malformed address is an invalid argument, with no DNS lookup") {
    Connection connection("broker.example:10911");
    auto response = connection.invoke(ping(), 500ms);
    REQUIRE_FALSE(response.is_ok());
    CHECK(response.status().code() == StatusCode::kInvalidArgument);
}
