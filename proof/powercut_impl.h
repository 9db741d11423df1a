// The power-cut VFS's state, shared by its public face (powercut_vfs.cpp) and
// its hooks under SQLite (powercut_callbacks.cpp). Internal to the power-cut simulator.
#ifndef OUTPOST_PROOF_POWERCUT_IMPL_H
#define OUTPOST_PROOF_POWERCUT_IMPL_H

#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "proof/pending_file.h"
#include "proof/powercut_vfs.h"
#include "proof/shim_vfs.h"

namespace outpost::testing {

// What SQLite's sqlite3_file points to; the real unix file follows it
// (shim_vfs.h).
struct PowercutFile : ShimFile {
    FileKind kind;
    std::string path;                      // empty for temporary files
    std::shared_ptr<PendingFile> pending;  // null when not tracked
};

// A shim on the real (default) VFS; its hooks are in powercut_callbacks.cpp.
class PowercutVfs::Impl final : public ShimVfs {
  public:
    Impl(std::string name, const PowercutOptions& options, sqlite3_vfs* real);

    const PowercutOptions options;  // set once by create()

    std::mutex mutex;  // guards everything below, and every callback

    // Files that exist, by full path. A deleted file leaves the map; a handle
    // still open on it keeps its PendingFile alive but out of the images.
    std::map<std::string, std::shared_ptr<PendingFile>> files;
    IoCounters counters;

    bool armed = false;
    CutTrigger trigger;
    CutPolicy armed_policy;
    std::uint64_t syncs_since_arm = 0;
    std::uint64_t writes_since_arm = 0;

    bool off = false;                     // a cut fired: the machine is off
    std::map<std::string, Bytes> images;  // after the cut, by full path
    std::string report;
    CutSummary summary;

    // Counts one xSync; true if the armed trigger of `kind` fires on it.
    bool sync_fires(CutTrigger::Kind kind);
    // Counts one xWrite to `path`; true if the armed trigger fires on it.
    bool write_fires(FileKind file_kind, const std::string& path);
    // Turns the power off: freezes what the disk holds into `images`.
    void cut(const CutPolicy& policy, const std::string& why);

  private:
    // The calls the simulator changes; shm_barrier passes.
    int open(const char* name, sqlite3_file* file, int flags, int* out_flags) override;
    int delete_file(const char* name, int sync_dir) override;
    int access(const char* name, int flags, int* result) override;
    int close(ShimFile& file) override;
    int read(ShimFile& file, void* buffer, int amount, sqlite3_int64 offset) override;
    int write(ShimFile& file, const void* data, int amount, sqlite3_int64 offset) override;
    int truncate(ShimFile& file, sqlite3_int64 size) override;
    int sync(ShimFile& file, int flags) override;
    int file_size(ShimFile& file, sqlite3_int64* size) override;
    int lock(ShimFile& file, int level) override;
    int unlock(ShimFile& file, int level) override;
    int check_reserved_lock(ShimFile& file, int* result) override;
    int file_control(ShimFile& file, int op, void* arg) override;
    int sector_size(ShimFile& file) override;
    int device_characteristics(ShimFile& file) override;
    int shm_map(ShimFile& file, int region, int size, int extend, void volatile** out) override;
    int shm_lock(ShimFile& file, int offset, int count, int flags) override;
    int shm_unmap(ShimFile& file, int delete_flag) override;
    // sync() under the lock; sync() adds the slow disk's delay outside it.
    int sync_locked(PowercutFile& file, int flags);
};

}  // namespace outpost::testing

#endif  // OUTPOST_PROOF_POWERCUT_IMPL_H
