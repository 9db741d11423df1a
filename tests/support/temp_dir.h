// A fresh directory under $TMPDIR (or /tmp) for one test, removed afterwards.
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
    TempDir() {
        const char* base = std::getenv("TMPDIR");
        std::string pattern = std::string(base && *base ? base : "/tmp") + "/outpost-test-XXXXXX";
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
    std::string path_;
};

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_TEMP_DIR_H
