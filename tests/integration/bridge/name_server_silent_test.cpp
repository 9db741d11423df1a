// A name server that accepts the connection and never answers (a listener of
// the test's own on loopback that reads and never writes), listed first:
// each route lookup it holds ends at the bridge's send timeout, the lookup
// goes on to the real name server, every alarm is forwarded, and the bridge
// log names the silent one.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>

#include "bridge_harness.h"
#include "secure_rocketmq.h"

using namespace outpost::testing;

namespace {

// Listens on 127.0.0.1:<free port>, accepts every connection and reads what
// arrives, never writing a byte back, until destroyed.
class SilentListener final {
  public:
    SilentListener() {
        listen_fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        REQUIRE(listen_fd_ >= 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        REQUIRE(::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), length) == 0);
        REQUIRE(::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) == 0);
        REQUIRE(::listen(listen_fd_, 16) == 0);
        address_ = "127.0.0.1:" + std::to_string(ntohs(address.sin_port));
        thread_ = std::thread([this] { run(); });
    }
    ~SilentListener() {
        stop_ = true;
        thread_.join();
        ::close(listen_fd_);
    }
    SilentListener(const SilentListener&) = delete;
    SilentListener& operator=(const SilentListener&) = delete;

    const std::string& address() const { return address_; }
    int connections() const { return connections_; }

  private:
    void run() {
        std::vector<pollfd> fds{{listen_fd_, POLLIN, 0}};
        char sink[4096];
        while (!stop_) {
            if (::poll(fds.data(), fds.size(), 100) <= 0) continue;
            for (std::size_t i = fds.size(); i-- > 1;) {
                if (fds[i].revents == 0) continue;
                if (::read(fds[i].fd, sink, sizeof sink) <= 0) {  // the peer gave up
                    ::close(fds[i].fd);
                    fds.erase(fds.begin() + static_cast<std::ptrdiff_t>(i));
                }
            }
            if (fds[0].revents & POLLIN) {
                const int fd = ::accept(listen_fd_, nullptr, nullptr);
                if (fd >= 0) {
                    ++connections_;
                    fds.push_back({fd, POLLIN, 0});
                }
            }
        }
        for (std::size_t i = 1; i < fds.size(); ++i) ::close(fds[i].fd);
    }

    int listen_fd_ = -1;
    std::string address_;
    std::atomic<bool> stop_{false};
    std::atomic<int> connections_{0};
    std::thread thread_;
};

}  // namespace

TEST_CASE("a silent name server listed first: alarms go through the other, the log names it") {
    TempDir dir;
    Mosquitto broker;
    SilentListener silent;
    const std::string alarms = "it_ns_silent_" + run_id();
    create_rocketmq_topic(alarms, 4);
    nlohmann::json config = bridge_config(broker.uri(), "bridge-ns-silent-" + run_id(), alarms,
                                          "it_ns_silent_q_" + run_id(), dir.file("status.json"));
    config["rocketmq"]["name_servers"] =
        nlohmann::json::array({silent.address(), rocketmq_env()["NAMESRV_ADDR"]});
    BridgeProcess bridge(dir, "bridge", config);
    bridge.start();
    const std::vector<GatewayEvent> events = make_events(2, 3, 4);  // 24 events
    forward_all_and_check(broker, bridge, alarms, events);
    CHECK(silent.connections() >= 1);  // it was asked, and held the lookup
    CHECK(bridge.logged("RocketMQ name server " + silent.address() + " failed a route lookup"));
    CHECK(bridge.logged("no answer from " + silent.address() + " within 2000 ms"));
    // Only while it fails: said once, not per lookup.
    const std::string log = read_file(dir.file("bridge.log"));
    CHECK(log.find("name server " + silent.address()) ==
          log.rfind("name server " + silent.address()));
}
