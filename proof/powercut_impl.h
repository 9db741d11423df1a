// The power-cut VFS's state, shared by its public face (powercut_vfs.cpp) and
// its SQLite callbacks (powercut_callbacks.cpp). Internal to the power-cut simulator.
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

namespace outpost::testing {

class PowercutVfs::Impl final {
  public:
    Impl(std::string name, const PowercutOptions& options, sqlite3_vfs* real);

    // Set up once by create(); read-only afterwards.
    sqlite3_vfs vfs{};  // what SQLite calls; pAppData points back here
    sqlite3_vfs* const real;
    const std::string name;
    const PowercutOptions options;

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
};

// Fills the size fields and callbacks of `vfs`, which wraps `real`
// (powercut_callbacks.cpp). Leaves zName and pAppData alone.
void install_powercut_callbacks(sqlite3_vfs& vfs, const sqlite3_vfs& real);

}  // namespace outpost::testing

#endif  // OUTPOST_PROOF_POWERCUT_IMPL_H
