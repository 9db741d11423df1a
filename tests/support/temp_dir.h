// A fresh directory for one test, removed afterwards (kept when
// OUTPOST_KEEP_TEST_FILES is set, for a post-mortem).
#ifndef OUTPOST_TESTS_TEMP_DIR_H
#define OUTPOST_TESTS_TEMP_DIR_H

#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include <ftw.h>
#include <unistd.h>

namespace outpost::testing {

class TempDir final {
public:
    // Where the directory is made. $TMPDIR always wins when set; otherwise
    // kTmp means /tmp, and kPreferTmpfs means /dev/shm when it is writable:
    // for files that stand for a simulated disk (the power-cut tests), where
    // the host disk's journaling only costs time.
    enum class Base { kTmp, kPreferTmpfs };

    explicit TempDir(Base where = Base::kTmp) {
        std::string pattern = base_path(where) + "/outpost-test-XXXXXX";
        std::vector<char> buffer(pattern.begin(), pattern.end());
        buffer.push_back('\0');
        if (::mkdtemp(buffer.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        path_ = buffer.data();
    }
    ~TempDir() {
        if (std::getenv("OUTPOST_KEEP_TEST_FILES") != nullptr) return;
        ::nftw(
            path_.c_str(),
            [](const char* path, const struct stat*, int, struct FTW*) { return ::remove(path); },
            16, FTW_DEPTH | FTW_PHYS);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::string& path() const { return path_; }
    std::string file(const std::string& name) const { return path_ + "/" + name; }

private:
    static std::string base_path(Base where) {
        const char* base = std::getenv("TMPDIR");
        if (base != nullptr && *base != '\0') return base;
        if (where == Base::kPreferTmpfs && ::access("/dev/shm", W_OK | X_OK) == 0) return "/dev/shm";
        return "/tmp";
    }

    std::string path_;
};

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_TEMP_DIR_H
