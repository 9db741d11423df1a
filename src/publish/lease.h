// The liveness half of the publisher lease: an exclusive flock on a file
// beside the database. The kernel drops the lock when the holder's process
// dies (even by SIGKILL), so liveness costs no writes and no clock. The
// other half, the fencing epoch, lives in the database (store/outbox.h).
#ifndef OUTPOST_PUBLISH_LEASE_H
#define OUTPOST_PUBLISH_LEASE_H

#include <string>

#include "outpost/status.h"

namespace outpost::publish {

// "<database>.lock".
std::string lease_path_for(const std::string& database_path);

// Owns the lock file descriptor. Not thread-safe: one owner thread.
class FileLease final {
  public:
    explicit FileLease(std::string path) : path_(std::move(path)) {}
    ~FileLease() { release(); }
    FileLease(const FileLease&) = delete;
    FileLease& operator=(const FileLease&) = delete;

    // Takes the lock if nobody holds it. Returns true when this object holds
    // it (also if it already did), false when another open file description
    // (another process, or another FileLease in this one) holds it.
    // Errors: kIoError when the lock file cannot be created or locked.
    Result<bool> try_acquire();
    // Drops the lock (closing the descriptor). Safe to call when not held.
    void release();
    bool held() const { return fd_ >= 0; }
    const std::string& path() const { return path_; }

  private:
    const std::string path_;
    int fd_ = -1;  // open and locked while held
};

}  // namespace outpost::publish

#endif  // OUTPOST_PUBLISH_LEASE_H
