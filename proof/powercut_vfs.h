// A power-cut simulator under SQLite: a sqlite3_vfs that wraps the default
// (unix) VFS, remembers every write and truncate each file received since its
// last xSync, and at a cut decides which of them reached the disk.
//
// Typical use in a test:
//
//   auto vfs = PowercutVfs::create("powercut", options, &error);
//   sqlite3_open_v2(path, &db, flags, vfs->name().c_str());
//   vfs->arm(CutTrigger::before_sync(7), {CutMode::kRandom, seed});
//   ... run the workload until SQLite reports an I/O error ...
//   sqlite3_close(db);
//   vfs->write_images(fresh_dir, &error);   // then open with the default VFS
//
// The running process sees normal behaviour until the cut (every write goes
// to the real file at once); after the cut the machine is "off" and every
// further I/O through the VFS fails with an SQLITE_IOERR code.
//
// Thread safety: all methods and all SQLite callbacks are serialised by one
// internal mutex, so connections on several threads may use the VFS.
#ifndef OUTPOST_PROOF_POWERCUT_VFS_H
#define OUTPOST_PROOF_POWERCUT_VFS_H

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "proof/cut_policy.h"

namespace outpost::testing {

// The kinds of file SQLite opens, as told by its xOpen flags.
enum class FileKind {
    kMainDb,   // SQLITE_OPEN_MAIN_DB
    kWal,      // SQLITE_OPEN_WAL
    kJournal,  // SQLITE_OPEN_MAIN_JOURNAL (rollback journal)
    kOther,    // temporary files, sub-journals, super-journals
};

struct FileCounters {
    std::uint64_t bytes_written = 0;
    std::uint64_t writes = 0;
    std::uint64_t syncs = 0;
    std::uint64_t truncates = 0;
};

// I/O that went through the VFS (before the cut) since creation or the last
// reset_counters(). The flash-wear figures the store's benchmark reports.
struct IoCounters {
    FileCounters main_db;
    FileCounters wal;
    FileCounters journal;
    FileCounters other;

    const FileCounters& of(FileKind kind) const;
    std::uint64_t total_bytes_written() const;
    std::uint64_t total_syncs() const;
};

// When the power goes. Counts start when the trigger is armed: n = 1 is the
// first matching call after arm().
struct CutTrigger {
    enum class Kind {
        // At the start of the n-th xSync: that sync never happens; the call
        // fails with SQLITE_IOERR_FSYNC.
        kBeforeSync,
        // Right after the n-th xSync made its file durable; the call itself
        // succeeds, so SQLite may report success for what it just synced.
        kAfterSync,
        // During the n-th xWrite: that write is recorded as pending (so it may
        // be kept, dropped or torn) and the call fails with SQLITE_IOERR_WRITE.
        kDuringWrite,
        // During the first write to a main database file while its WAL file
        // is non-empty, i.e. the first checkpoint write. As kDuringWrite.
        kDuringCheckpointWrite,
    };
    Kind kind = Kind::kBeforeSync;
    std::uint64_t n = 1;

    static CutTrigger before_sync(std::uint64_t n) { return {Kind::kBeforeSync, n}; }
    static CutTrigger after_sync(std::uint64_t n) { return {Kind::kAfterSync, n}; }
    static CutTrigger during_write(std::uint64_t n) { return {Kind::kDuringWrite, n}; }
    static CutTrigger during_checkpoint_write() { return {Kind::kDuringCheckpointWrite, 1}; }
};

// What a cut did to the operations pending in all files.
struct CutSummary {
    std::uint64_t pending = 0;  // operations not yet synced when the power went
    std::uint64_t kept = 0;
    std::uint64_t dropped = 0;
    std::uint64_t torn = 0;
    std::uint64_t garbage_sectors = 0;  // sectors a torn write filled with garbage
};

struct PowercutOptions {
    // What the simulated device promises; reported to SQLite as is.
    DeviceModel device;
    // True: xSync also fsyncs the real file (for benchmarks that time it).
    // False: the sync is simulated only, which makes sweeps fast; the real
    // files are scratch copies anyway.
    bool forward_syncs = true;
    // False: count I/O only and keep no copy of any file (for benchmarks on
    // large databases). arm(), cut_now() and write_images() then refuse.
    bool simulate_cuts = true;
    // Added to every forwarded xSync, after the real one and outside the
    // VFS's lock: a slow-syncing disk (an SD card) shown on a fast one.
    std::chrono::microseconds sync_delay{0};
};

class PowercutVfs final {
  public:
    // Registers a VFS called `name` (not as the default VFS) on top of the
    // VFS that is the default now. Returns nullptr and sets *error if the
    // name is already registered, the options are invalid (sector size) or
    // there is no default VFS. The returned object owns the registration.
    static std::unique_ptr<PowercutVfs> create(const std::string& name,
                                               const PowercutOptions& options, std::string* error);

    // Unregisters the VFS. Every connection opened through it must have been
    // closed first (SQLite keeps a pointer to it).
    ~PowercutVfs();

    PowercutVfs(const PowercutVfs&) = delete;
    PowercutVfs& operator=(const PowercutVfs&) = delete;

    // The name to pass to sqlite3_open_v2().
    const std::string& name() const;

    // Arms one cut; replaces any cut armed before. `policy` says what happens
    // to pending operations when it fires. Returns false (nothing armed) if
    // the power is already off or simulate_cuts is false.
    bool arm(const CutTrigger& trigger, const CutPolicy& policy);
    // Forgets the armed cut, if any.
    void disarm();

    // Cuts the power now, e.g. right after a COMMIT returned. Returns false if
    // the power was already off or simulate_cuts is false.
    bool cut_now(const CutPolicy& policy);

    // True once a cut fired. It never becomes false again.
    bool is_off() const;

    // One line on how the cut went (trigger, pending operations per file,
    // kept/dropped/torn counts), for test failure messages. Empty before the
    // cut.
    std::string cut_report() const;
    // The same in numbers, so a test can prove its cuts were not all benign.
    // All zero before the cut.
    CutSummary cut_summary() const;

    // Writes what the disk holds after the cut into the existing directory
    // `dir`: one file per main database, WAL and journal file the VFS saw and
    // that was not deleted, under its own base name. Never a -shm file: the
    // shared-memory index is not durable, and the files written are new
    // inodes, so a connection in this process opening them with the default
    // VFS runs SQLite's real recovery. Returns false and sets *error if the
    // power is still on, two files share a base name, or writing fails (some
    // images may then be written).
    bool write_images(const std::string& dir, std::string* error) const;

    // Base names of the files write_images() writes. Empty before the cut.
    std::vector<std::string> image_names() const;

    IoCounters counters() const;
    void reset_counters();

    class Impl;

  private:
    explicit PowercutVfs(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

}  // namespace outpost::testing

#endif  // OUTPOST_PROOF_POWERCUT_VFS_H
