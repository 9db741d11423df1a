#include "rocketmq/name_server_list.h"

namespace outpost::rocketmq {

std::vector<std::string> split_name_server_addresses(const std::string& list) {
    std::vector<std::string> addresses;
    std::size_t start = 0;
    while (start <= list.size()) {
        const std::size_t end = list.find(';', start);
        std::string item = list.substr(start, end == std::string::npos ? end : end - start);
        if (!item.empty()) {
            addresses.push_back(std::move(item));
        }
        if (end == std::string::npos) {
            break;
        }
        start = end + 1;
    }
    return addresses;
}

NameServerList::NameServerList(const std::string& addresses)
    : addresses_(split_name_server_addresses(addresses)) {}

std::vector<std::string> NameServerList::in_asking_order() const {
    std::vector<std::string> order;
    order.reserve(addresses_.size());
    for (std::size_t i = 0; i < addresses_.size(); ++i) {
        order.push_back(addresses_[(first_ + i) % addresses_.size()]);
    }
    return order;
}

bool NameServerList::answered(const std::string& address) {
    for (std::size_t i = 0; i < addresses_.size(); ++i) {
        if (addresses_[i] == address) {
            first_ = i;
            break;
        }
    }
    return failing_.erase(address) > 0;
}

bool NameServerList::failed(const std::string& address) {
    return failing_.insert(address).second;
}

}  // namespace outpost::rocketmq
