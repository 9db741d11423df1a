// The host side of a torn ext4 superblock, with the real e2fsprogs: a data
// disk whose block 0 keeps one sector of an older superblock does not verify,
// e2fsck -fy repairs it from a backup, and the files on it are intact.
#include "proof/vm/host_tools.h"

#include <catch2/catch.hpp>
#include <fstream>

#include "file_content.h"
#include "proof/child.h"
#include "proof/vm/disk_layout.h"
#include "temp_dir.h"

using namespace outpost::torture::vm;

namespace {

std::string read_range(const std::string& path, std::streamoff offset, size_t length) {
    std::ifstream in(path, std::ios::binary);
    in.seekg(offset);
    std::string bytes(length, '\0');
    in.read(bytes.data(), static_cast<std::streamsize>(length));
    return in ? bytes : std::string();
}

void write_range(const std::string& path, std::streamoff offset, const std::string& bytes) {
    std::fstream out(path, std::ios::binary | std::ios::in | std::ios::out);
    out.seekp(offset);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

bool tool_ok(const std::vector<std::string>& argv, const std::string& log) {
    return run_tool(argv, log, std::chrono::seconds(60)).exit_code == 0;
}

}  // namespace

TEST_CASE("a superblock torn across sectors is refused, and e2fsck -fy repairs it keeping the files") {
    outpost::testing::TempDir dir;
    const std::string disk = dir.path() + "/disk.img";
    std::string error;
    REQUIRE(make_data_disk(disk, &error));
    // A file in the store's directory, as the guest would leave it.
    const std::string file = dir.path() + "/outbox.db";
    std::ofstream(file) << "rows that must survive the repair\n";
    REQUIRE(tool_ok({"debugfs", "-w", "-R", std::string("mkdir ") + kStoreDir, disk},
                    dir.path() + "/mkdir.log"));
    REQUIRE(tool_ok({"debugfs", "-w", "-R",
                     "write " + file + " " + kStoreDir + "/outbox.db", disk},
                    dir.path() + "/write.log"));
    REQUIRE(superblock_verifies(disk, dir.path() + "/before.log"));

    // The superblock is bytes 1024-2047 of block 0, two sectors. A new
    // version (another mount count and its checksum) reaches the first
    // sector only: what a cut inside the 4 KiB write of block 0 can leave.
    const std::string old_second_sector = read_range(disk, 1536, 512);
    REQUIRE(old_second_sector.size() == 512);
    REQUIRE(tool_ok({"tune2fs", "-C", "9", disk}, dir.path() + "/tune2fs.log"));
    REQUIRE(read_range(disk, 1536, 512) != old_second_sector);
    write_range(disk, 1536, old_second_sector);

    CHECK_FALSE(superblock_verifies(disk, dir.path() + "/torn.log"));
    CHECK_FALSE(fsck_problems(disk, dir.path() + "/torn-fsck.log").empty());

    CHECK(fsck_repair(disk, dir.path() + "/repair.log").empty());
    CHECK(superblock_verifies(disk, dir.path() + "/after.log"));
    CHECK(fsck_problems(disk, dir.path() + "/after-fsck.log").empty());
    const std::string out = dir.path() + "/out";
    REQUIRE(outpost::torture::make_dir(out));
    REQUIRE(copy_store_out(disk, out, &error));
    CHECK(outpost::testing::file_content(out + "/" + kStoreDir + "/outbox.db") ==
          "rows that must survive the repair\n");
}
