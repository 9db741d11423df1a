#include "temp_dir.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

namespace outpost::testing {

namespace {

// $TMPDIR if set; otherwise tmpfs when there is one: these files stand for a
// simulated disk, so the host disk's own journaling only costs time (on ext4
// the sweeps take twice as long).
std::string scratch_base() {
    const char* base = std::getenv("TMPDIR");
    if (base != nullptr && *base != '\0') return base;
    if (::access("/dev/shm", W_OK | X_OK) == 0) return "/dev/shm";
    return "/tmp";
}

}  // namespace

TempDir::TempDir() {
    std::string pattern = scratch_base() + "/outpost-powercut-XXXXXX";
    std::vector<char> buffer(pattern.begin(), pattern.end());
    buffer.push_back('\0');
    if (::mkdtemp(buffer.data()) == nullptr) {
        std::perror("mkdtemp");
        std::abort();
    }
    path_ = buffer.data();
}

TempDir::~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
}

}  // namespace outpost::testing
