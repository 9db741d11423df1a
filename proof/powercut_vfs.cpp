// Design note: the power-cut VFS.
//
// What it is. A shim VFS (shim_vfs.h) registered under its own name on top
// of the default (unix) VFS. Every file SQLite opens through it is a
// PowercutFile (powercut_impl.h) followed in memory by the real unix file, so
// szOsFile is the sum of the two. Its hooks (powercut_callbacks.cpp) send
// reads, locks and shared memory straight to the real file. Writes and
// truncates also go to the real file at once, so the running process behaves
// normally, and are remembered per file in a PendingFile (pending_file.cpp)
// until that file's next xSync.
//
// State (all under one mutex):
//   files    full path -> PendingFile, for the main database, WAL and rollback
//            journal (temporary files and sub-journals die with the process
//            and are not tracked);
//   trigger  the armed cut and the xSync/xWrite counts since it was armed;
//   off      set once by a cut, never cleared;
//   images   the contents each file keeps after the cut.
//
// Invariants:
//   1. Before the cut, each tracked real file equals its PendingFile's
//      durable image with all its pending operations applied.
//   2. Only xSync on a file moves its pending operations into its durable
//      image; xClose does not (closing flushes nothing to the platters).
//   3. The io_methods are version 2: there is no xFetch, so SQLite cannot read
//      through a memory map that would bypass this layer (the shim layer's
//      invariant 2). The shared-memory methods pass through; the -shm file is
//      never part of the images.
//   4. SQLite is told the simulated device (sector size, powersafe
//      overwrite) and a cut never does more damage than that device allows.
//   5. Once off, every read, write, sync, truncate, size, lock, open, access
//      and delete fails with an SQLITE_IOERR code. Unlocks and closes still
//      release the real resources, so the test can close its connections.
//
// A cut. Triggered by the armed trigger inside a callback or by cut_now(). For
// each existing file, in path order, the PendingFile computes the after-cut
// image with one generator seeded from the policy (same seed, same images).
// Deleting a file is treated as durable at once (the unix VFS fsyncs the
// directory when SQLite asks for it; when SQLite does not ask, it does not
// depend on the deletion surviving). Creating a file is also taken as durable:
// directory entries are not simulated.
//
// After the cut, write_images() writes the images as new files in a fresh
// directory: new inodes, no -shm, so opening them with the default VFS in this
// same process runs SQLite's real recovery rather than reusing the unix VFS's
// in-process shared-memory node of the old inode.
#include "proof/powercut_vfs.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>
#include <utility>

#include "proof/powercut_impl.h"

namespace outpost::testing {

namespace {

std::string base_name(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

const char* mode_name(CutMode mode) {
    switch (mode) {
        case CutMode::kDropAllPending:
            return "drop-all";
        case CutMode::kKeepAllPending:
            return "keep-all";
        case CutMode::kRandom:
            return "random";
    }
    return "?";
}

// Writes `bytes` into a new file `path`; O_EXCL guarantees a new inode.
bool write_new_file(const std::string& path, const Bytes& bytes, std::string* error) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) {
        *error = "cannot create image " + path + ": " + std::strerror(errno) +
                 " (write_images needs a directory without these files)";
        return false;
    }
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            *error = "cannot write image " + path + ": " + std::strerror(errno);
            ::close(fd);
            return false;
        }
        done += static_cast<std::size_t>(n);
    }
    if (::close(fd) != 0) {
        *error = "cannot close image " + path + ": " + std::strerror(errno);
        return false;
    }
    return true;
}

}  // namespace

const FileCounters& IoCounters::of(FileKind kind) const {
    switch (kind) {
        case FileKind::kMainDb:
            return main_db;
        case FileKind::kWal:
            return wal;
        case FileKind::kJournal:
            return journal;
        case FileKind::kOther:
            return other;
    }
    return other;
}

std::uint64_t IoCounters::total_bytes_written() const {
    return main_db.bytes_written + wal.bytes_written + journal.bytes_written + other.bytes_written;
}

std::uint64_t IoCounters::total_syncs() const {
    return main_db.syncs + wal.syncs + journal.syncs + other.syncs;
}

PowercutVfs::Impl::Impl(std::string vfs_name, const PowercutOptions& vfs_options,
                        sqlite3_vfs* real_vfs)
    : ShimVfs(std::move(vfs_name), real_vfs, sizeof(PowercutFile)), options(vfs_options) {}

bool PowercutVfs::Impl::sync_fires(CutTrigger::Kind kind) {
    if (!armed) return false;
    ++syncs_since_arm;
    return trigger.kind == kind && syncs_since_arm == trigger.n;
}

bool PowercutVfs::Impl::write_fires(FileKind file_kind, const std::string& path) {
    if (!armed) return false;
    ++writes_since_arm;
    if (trigger.kind == CutTrigger::Kind::kDuringWrite) return writes_since_arm == trigger.n;
    if (trigger.kind != CutTrigger::Kind::kDuringCheckpointWrite) return false;
    if (file_kind != FileKind::kMainDb) return false;
    const auto wal = files.find(path + "-wal");
    return wal != files.end() && wal->second->size() > 0;
}

void PowercutVfs::Impl::cut(const CutPolicy& policy, const std::string& why) {
    off = true;  // invariant 5 from here on
    armed = false;
    CutRandom random(policy.seed);
    CutTally tally;
    std::string pending_per_file;
    for (const auto& [path, file] : files) {
        images[path] = file->image_after_cut(policy.mode, options.device, random, tally);
        pending_per_file += " " + base_name(path) + ":" + std::to_string(file->pending_count());
    }
    summary.pending = tally.kept + tally.dropped + tally.torn;
    summary.kept = tally.kept;
    summary.dropped = tally.dropped;
    summary.torn = tally.torn;
    summary.garbage_sectors = tally.garbage_sectors;
    files.clear();  // open handles keep their own reference until xClose
    report = "cut " + why + ", mode " + mode_name(policy.mode) + ", seed " +
             std::to_string(policy.seed) + ", sector " +
             std::to_string(options.device.sector_size) +
             (options.device.powersafe_overwrite ? " psow" : " no-psow") + "; pending" +
             pending_per_file + "; kept " + std::to_string(tally.kept) + ", dropped " +
             std::to_string(tally.dropped) + ", torn " + std::to_string(tally.torn) +
             " (garbage sectors " + std::to_string(tally.garbage_sectors) + ")";
}

std::unique_ptr<PowercutVfs> PowercutVfs::create(const std::string& name,
                                                 const PowercutOptions& options,
                                                 std::string* error) {
    const std::uint32_t sector = options.device.sector_size;
    if (sector < 512 || sector > 65536 || (sector & (sector - 1)) != 0) {
        *error =
            "sector size " + std::to_string(sector) + " is not a power of two from 512 to 65536";
        return nullptr;
    }
    sqlite3_vfs* real = sqlite3_vfs_find(nullptr);
    if (real == nullptr) {
        *error = "no default SQLite VFS to wrap";
        return nullptr;
    }
    auto impl = std::make_unique<Impl>(name, options, real);
    if (!impl->register_vfs(error)) return nullptr;
    return std::unique_ptr<PowercutVfs>(new PowercutVfs(std::move(impl)));
}

PowercutVfs::PowercutVfs(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

PowercutVfs::~PowercutVfs() = default;  // Impl unregisters the VFS

const std::string& PowercutVfs::name() const {
    return impl_->name();
}

bool PowercutVfs::arm(const CutTrigger& trigger, const CutPolicy& policy) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    if (impl_->off || !impl_->options.simulate_cuts || trigger.n == 0) return false;
    impl_->armed = true;
    impl_->trigger = trigger;
    impl_->armed_policy = policy;
    impl_->syncs_since_arm = 0;
    impl_->writes_since_arm = 0;
    return true;
}

void PowercutVfs::disarm() {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->armed = false;
}

bool PowercutVfs::cut_now(const CutPolicy& policy) {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    if (impl_->off || !impl_->options.simulate_cuts) return false;
    impl_->cut(policy, "on demand");
    return true;
}

bool PowercutVfs::is_off() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    return impl_->off;
}

std::string PowercutVfs::cut_report() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    return impl_->report;
}

CutSummary PowercutVfs::cut_summary() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    return impl_->summary;
}

bool PowercutVfs::write_images(const std::string& dir, std::string* error) const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    if (!impl_->off) {
        *error = "write_images: the power is still on (no cut fired)";
        return false;
    }
    std::set<std::string> names;
    for (const auto& entry : impl_->images) {
        if (!names.insert(base_name(entry.first)).second) {
            *error = "write_images: two files are named " + base_name(entry.first);
            return false;
        }
    }
    for (const auto& [path, bytes] : impl_->images) {
        if (!write_new_file(dir + "/" + base_name(path), bytes, error)) return false;
    }
    return true;
}

std::vector<std::string> PowercutVfs::image_names() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    std::vector<std::string> names;
    for (const auto& entry : impl_->images) names.push_back(base_name(entry.first));
    return names;
}

IoCounters PowercutVfs::counters() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    return impl_->counters;
}

void PowercutVfs::reset_counters() {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->counters = IoCounters{};
}

}  // namespace outpost::testing
