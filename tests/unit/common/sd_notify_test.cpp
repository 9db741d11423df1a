// The systemd notifier (src/common/sd_notify.h) never blocks its sender: a
// notify socket nobody reads fills up, and from then on send() returns an
// error at once instead of hanging the thread that feeds the watchdog.
// (Were it to block, this test would hang until meson's timeout.)
#include "common/sd_notify.h"

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <string>

#include "temp_dir.h"

TEST_CASE("a full notify socket makes send fail at once instead of blocking") {
    outpost::testing::TempDir dir;
    const std::string path = dir.file("notify.sock");
    const int reader = ::socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    REQUIRE(reader >= 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    REQUIRE(path.size() < sizeof address.sun_path);
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    REQUIRE(::bind(reader, reinterpret_cast<const sockaddr*>(&address), sizeof address) == 0);
    ::setenv("NOTIFY_SOCKET", path.c_str(), 1);
    const outpost::Notifier notifier;
    ::unsetenv("NOTIFY_SOCKET");
    REQUIRE(notifier.enabled());
    CHECK(notifier.send("READY=1").is_ok());

    // Nobody reads: the socket's queue fills (max_dgram_qlen datagrams or
    // its buffer), then sends fail with EAGAIN.
    const std::string status = "STATUS=" + std::string(1000, 'x');
    int failed_at = -1;
    for (int i = 0; i < 100000 && failed_at < 0; ++i) {
        if (!notifier.send(status).is_ok()) failed_at = i;
    }
    INFO("first failed send: " << failed_at);
    CHECK(failed_at > 0);
    const outpost::Status again = notifier.send("WATCHDOG=1");
    CHECK_FALSE(again.is_ok());
    CHECK(again.message().find(path) != std::string::npos);
    ::close(reader);
}
