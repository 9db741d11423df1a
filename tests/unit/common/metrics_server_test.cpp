// The metrics endpoint answers a scrape while another client trickles its
// request one byte at a time: that client is cut off at its connection
// deadline instead of holding the single-threaded server.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <thread>

#include "common/listen_address.h"
#include "common/metrics_server.h"

namespace {

int connect_to(const std::string& bound_address) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(
        std::stoi(bound_address.substr(bound_address.rfind(':') + 1))));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0);
    return fd;
}

std::string scrape(const std::string& bound_address) {
    const int fd = connect_to(bound_address);
    const std::string request = "GET /metrics HTTP/1.0\r\n\r\n";
    REQUIRE(::send(fd, request.data(), request.size(), MSG_NOSIGNAL) ==
            static_cast<ssize_t>(request.size()));
    std::string answer;
    char buffer[512];
    for (ssize_t n; (n = ::recv(fd, buffer, sizeof buffer, 0)) > 0;) {
        answer.append(buffer, static_cast<size_t>(n));
    }
    ::close(fd);
    return answer;
}

}  // namespace

TEST_CASE("a client trickling its request cannot hold the metrics endpoint from a scrape") {
    auto address = outpost::parse_listen_address("127.0.0.1:0");
    REQUIRE(address.is_ok());
    auto server = outpost::MetricsServer::start(
        *address, [] { return std::string("outpost_up 1\n"); }, std::chrono::milliseconds(300));
    REQUIRE(server.is_ok());
    const std::string bound = (*server)->bound_address();

    // Under the server's request cap (8192 bytes), one byte per 20 ms: far
    // past any per-read timeout, unless the server cuts it off.
    constexpr int kTrickleBytes = 8000;
    std::atomic<int> sent{0};
    std::atomic<bool> finished_by_itself{false};
    std::atomic<bool> scraped{false};
    std::thread trickler([&] {
        const int fd = connect_to(bound);
        while (sent < kTrickleBytes && !scraped) {
            if (::send(fd, "G", 1, MSG_NOSIGNAL) != 1) break;  // the server closed it
            ++sent;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        finished_by_itself = sent == kTrickleBytes;
        ::close(fd);
    });
    while (sent == 0) std::this_thread::yield();  // the trickler holds the server first

    const std::string answer = scrape(bound);
    scraped = true;
    trickler.join();
    CHECK(answer.find("200 OK") != std::string::npos);
    CHECK(answer.find("outpost_up 1") != std::string::npos);
    CHECK_FALSE(finished_by_itself);
    INFO("bytes trickled before the scrape was answered: " << sent.load());
}
