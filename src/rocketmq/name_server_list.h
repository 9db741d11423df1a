// The configured name servers and which one to ask first.
//
// Any name server can answer any route lookup (each broker registers with
// all of them), so one that is down or refuses only costs the time to notice
// before the next is asked. The list remembers the last one that answered
// and starts there, so a dead first entry costs one failed attempt per
// failover rather than one per lookup.
#ifndef OUTPOST_ROCKETMQ_NAME_SERVER_LIST_H
#define OUTPOST_ROCKETMQ_NAME_SERVER_LIST_H

#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace outpost::rocketmq {

// Splits "ip:port;ip:port" (empty items are skipped).
std::vector<std::string> split_name_server_addresses(const std::string& list);

// Not thread-safe: the owner serializes calls.
class NameServerList final {
  public:
    explicit NameServerList(const std::string& addresses);

    bool empty() const { return addresses_.empty(); }
    // Every address once, the one that answered last first, then the rest in
    // configured order after it.
    std::vector<std::string> in_asking_order() const;
    // `address` answered (a route or "no such topic"): ask it first next time.
    // True when it had failed since it last answered (it is back).
    bool answered(const std::string& address);
    // `address` did not answer a lookup (refused, silent until the timeout,
    // closed, an error code). True when that is news: it answered last time
    // or was never asked; false while it keeps failing.
    bool failed(const std::string& address);

  private:
    std::vector<std::string> addresses_;
    std::size_t first_ = 0;
    std::set<std::string> failing_;  // failed since they last answered
};

}  // namespace outpost::rocketmq

#endif  // OUTPOST_ROCKETMQ_NAME_SERVER_LIST_H
