#include "proof/vm/guest/channel.h"

#include <unistd.h>

#include <cerrno>

namespace outpost::torture::vm::guest {

void Channel::line(const std::string& text) const {
    const std::string out = text + "\n";
    size_t done = 0;
    while (done < out.size()) {
        const ssize_t wrote = ::write(fd_, out.data() + done, out.size() - done);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) return;
        done += static_cast<size_t>(wrote);
    }
}

}  // namespace outpost::torture::vm::guest
