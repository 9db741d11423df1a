#include "publish/unconfirmed_pickup.h"

#include <algorithm>

namespace outpost::publish {

Result<std::vector<store::UnconfirmedRow>> UnconfirmedPickup::look(store::Db& reader,
                                                                   int64_t room) {
    if (!more_ || room <= 0) return std::vector<store::UnconfirmedRow>();
    const int limit = static_cast<int>(std::min<int64_t>(room, kMaxLookRows));
    auto rows = store::fetch_unconfirmed(reader, cursor_, limit);
    if (!rows) return rows.status();
    ++looks_;
    if (static_cast<int>(rows->size()) < limit) {
        reset();  // the end: the next pickup walks from the first row again
    } else {
        cursor_ = rows->back().id;
    }
    return rows;
}

}  // namespace outpost::publish
