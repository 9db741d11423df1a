// The topic route a name server answers (rocketmq/route.h), fed whatever a
// name server, a broken one or an impostor, could send. Properties: a route
// that parses yields write queues in broker-name then queue-id order with
// no queue twice, each on a broker that has a master address and a queue
// entry that allows writing; and parsing is deterministic.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <tuple>

#include "fuzz_check.h"
#include "rocketmq/route.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view body(reinterpret_cast<const char*>(data), size);
    auto route = outpost::rocketmq::parse_topic_route(body);
    if (!route.is_ok()) return 0;
    const auto queues = route->write_queues();
    for (std::size_t i = 0; i < queues.size(); ++i) {
        FUZZ_CHECK(!route->master_address(queues[i].broker_name).empty(),
                   "a write queue is on a broker with a master");
        bool writable = false;
        for (const auto& entry : route->queues) {
            writable = writable || (entry.broker_name == queues[i].broker_name &&
                                    (entry.perm & outpost::rocketmq::kPermWrite) != 0 &&
                                    queues[i].queue_id < entry.write_queue_count);
        }
        FUZZ_CHECK(writable, "a write queue comes from a writable queue entry");
        if (i == 0) continue;
        FUZZ_CHECK(std::tie(queues[i - 1].broker_name, queues[i - 1].queue_id) <
                       std::tie(queues[i].broker_name, queues[i].queue_id),
                   "write queues are ordered by broker then queue id, none twice");
    }
    auto again = outpost::rocketmq::parse_topic_route(body);
    FUZZ_CHECK(again.is_ok() && again->write_queues() == queues, "parsing is deterministic");
    return 0;
}
