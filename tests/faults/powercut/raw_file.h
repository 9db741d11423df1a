// A file opened directly through a sqlite3_vfs, without SQLite's pager, so a
// test can issue exact writes, syncs and truncates and inspect what a cut left.
#ifndef OUTPOST_TESTS_FAULTS_POWERCUT_RAW_FILE_H
#define OUTPOST_TESTS_FAULTS_POWERCUT_RAW_FILE_H

#include <sqlite3.h>

#include <string>
#include <vector>

namespace outpost::testing {

using ByteString = std::vector<unsigned char>;

class RawFile final {
  public:
    // Opens (creating) `path` through the VFS named `vfs_name` with the given
    // SQLITE_OPEN_* file-type flag. open_rc() tells whether it worked. The
    // unix VFS opens a WAL or journal only beside an existing database file.
    RawFile(const std::string& vfs_name, const std::string& path, int type_flag);
    ~RawFile();  // closes if open
    RawFile(const RawFile&) = delete;
    RawFile& operator=(const RawFile&) = delete;

    int open_rc() const { return open_rc_; }
    // Each returns the VFS's result code, or SQLITE_MISUSE if not open.
    int write(long long offset, const ByteString& bytes);
    int sync();
    int truncate(long long size);
    int read(long long offset, int size, ByteString* out);
    int size(long long* out);
    int lock(int level);
    int close();

  private:
    sqlite3_vfs* vfs_ = nullptr;
    std::vector<unsigned char> storage_;  // szOsFile bytes for the sqlite3_file
    std::string name_;                    // path followed by two NULs, as SQLite passes
    int open_rc_ = SQLITE_ERROR;
    bool open_ = false;

    sqlite3_file* file() { return reinterpret_cast<sqlite3_file*>(storage_.data()); }
};

// `size` copies of `byte`.
ByteString filled(std::size_t size, unsigned char byte);
// Reads a whole host file; empty if it does not exist.
ByteString read_host_file(const std::string& path);

}  // namespace outpost::testing

#endif  // OUTPOST_TESTS_FAULTS_POWERCUT_RAW_FILE_H
