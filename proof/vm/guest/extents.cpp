#include "proof/vm/guest/extents.h"

#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdint>
#include <vector>

namespace outpost::torture::vm::guest {

void report_extents(const std::string& name, const std::string& path, const Channel& channel) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    constexpr unsigned kMaxExtents = 512;
    std::vector<uint8_t> buffer(sizeof(fiemap) + kMaxExtents * sizeof(fiemap_extent));
    auto* map = reinterpret_cast<fiemap*>(buffer.data());
    map->fm_start = 0;
    map->fm_length = FIEMAP_MAX_OFFSET;
    map->fm_flags = 0;  // no sync: the store fsyncs its files, and a sync would add writes
    map->fm_extent_count = kMaxExtents;
    if (::ioctl(fd, FS_IOC_FIEMAP, map) == 0) {
        for (unsigned i = 0; i < map->fm_mapped_extents; ++i) {
            const fiemap_extent& extent = map->fm_extents[i];
            channel.line("vm extent " + name + " " + std::to_string(extent.fe_physical) + " " +
                         std::to_string(extent.fe_length));
        }
    }
    ::close(fd);
}

}  // namespace outpost::torture::vm::guest
