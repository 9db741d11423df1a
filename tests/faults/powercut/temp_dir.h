// A scratch directory that removes itself, for tests that need real files.
#ifndef OUTPOST_TESTS_FAULTS_POWERCUT_TEMP_DIR_H
#define OUTPOST_TESTS_FAULTS_POWERCUT_TEMP_DIR_H

#include <string>

namespace outpost::testing {

class TempDir final {
  public:
    // Creates a new empty directory under $TMPDIR (or /dev/shm, or /tmp). Aborts the test
    // program if that fails: nothing meaningful can run without it.
    TempDir();
    ~TempDir();
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;

    const std::string& path() const { return path_; }
    std::string file(const std::string& name) const { return path_ + "/" + name; }

  private:
    std::string path_;
};

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_FAULTS_POWERCUT_TEMP_DIR_H
