// A pass-through layer under SQLite, the common part of the proof toolkit's
// VFSes (the power-cut simulator, powercut_vfs.h; the I/O error injector,
// io_error_vfs.h): a sqlite3_vfs registered under its own name on top of a
// VFS below, each of whose callbacks calls a hook of the shim built on it. A
// hook the shim does not override forwards the call to the VFS below
// unchanged, so a shim's file holds only what it does differently.
//
//   class Impl final : public ShimVfs {
//       Impl(sqlite3_vfs* below) : ShimVfs("mine", below, sizeof(MyFile)) {}
//       int open(const char* name, sqlite3_file* file, int flags, int* out) override;
//       int close(ShimFile& file) override;
//       int sync(ShimFile& file, int flags) override;  // the one call it changes
//   };
//
// Design note. A file opened through a shim is the shim's own file struct
// (derived from ShimFile, whose sqlite3_file comes first since SQLite casts to
// it) followed in memory by the file of the VFS below, so szOsFile is the sum
// of the two.
//
// Invariants:
//  1. Every sqlite3_vfs and sqlite3_io_methods callback is written once, in
//     shim_vfs.cpp; a shim changes a call only through its hook.
//  2. The io_methods are version 2: shared memory passes through the hooks,
//     but there is no xFetch/xUnfetch, and SQLITE_FCNTL_MMAP_SIZE is answered
//     0 before any hook sees it, so SQLite cannot read through a memory map
//     that would bypass the shim.
//  3. SQLite gets a file's io_methods only once the shim's open hook returned
//     SQLITE_OK, so it calls close (once) only on a file the shim opened;
//     the close hook closes the file below and destroys the shim's struct.
//  4. A file below without shared memory (io_methods version 1) makes the
//     default shm_map and shm_lock fail and shm_barrier and shm_unmap do
//     nothing, rather than call a method it lacks.
//
// Thread safety: the layer's callbacks keep no state of their own; a shim
// that has some guards it in its hooks.
#ifndef OUTPOST_PROOF_SHIM_VFS_H
#define OUTPOST_PROOF_SHIM_VFS_H

#include <sqlite3.h>

#include <cstddef>
#include <string>

namespace outpost::testing {

class ShimVfs;

// The head of every file a shim opens; the shim's own struct derives from it.
struct ShimFile {
    sqlite3_file base;  // first: SQLite casts to it
    ShimVfs* shim;      // the VFS that opened the file

    // The file of the VFS below, right after the shim's struct.
    sqlite3_file* below();
    const sqlite3_io_methods& below_methods() { return *below()->pMethods; }
};

class ShimVfs {
  public:
    ShimVfs(const ShimVfs&) = delete;
    ShimVfs& operator=(const ShimVfs&) = delete;
    // Unregisters the VFS (if registered). Every connection through it must
    // have been closed first: SQLite keeps a pointer to it.
    virtual ~ShimVfs();

    const std::string& name() const { return name_; }
    sqlite3_vfs* below_vfs() const { return below_; }

    // Registers the VFS under name(), not as the default. Returns false and
    // sets *error if the name is empty or taken, or SQLite refuses.
    bool register_vfs(std::string* error);

  protected:
    // `below` is the VFS every call goes to; `file_size` is the size of the
    // shim's file struct (at least sizeof(ShimFile)).
    ShimVfs(std::string name, sqlite3_vfs* below, std::size_t file_size);

    // Opens `name` with the VFS below into the part of `file` after the
    // shim's struct. SQLITE_CANTOPEN if the VFS below reports success without
    // io_methods.
    int open_below(const char* name, ShimFile& file, int flags, int* out_flags);

    // ---- hooks: one per callback SQLite makes ----
    // Must placement-construct the shim's struct at `file` (setting shim to
    // this) and call open_below(); on failure, leave nothing open or
    // constructed and return the error code.
    virtual int open(const char* name, sqlite3_file* file, int flags, int* out_flags) = 0;
    virtual int delete_file(const char* name, int sync_dir);
    virtual int access(const char* name, int flags, int* result);

    // Must close the file below (its below_methods().xClose) and destroy the
    // shim's struct.
    virtual int close(ShimFile& file) = 0;
    virtual int read(ShimFile& file, void* buffer, int amount, sqlite3_int64 offset);
    virtual int write(ShimFile& file, const void* data, int amount, sqlite3_int64 offset);
    virtual int truncate(ShimFile& file, sqlite3_int64 size);
    virtual int sync(ShimFile& file, int flags);
    virtual int file_size(ShimFile& file, sqlite3_int64* size);
    virtual int lock(ShimFile& file, int level);
    virtual int unlock(ShimFile& file, int level);
    virtual int check_reserved_lock(ShimFile& file, int* result);
    // Never sees SQLITE_FCNTL_MMAP_SIZE (invariant 2).
    virtual int file_control(ShimFile& file, int op, void* arg);
    virtual int sector_size(ShimFile& file);
    virtual int device_characteristics(ShimFile& file);
    virtual int shm_map(ShimFile& file, int region, int size, int extend, void volatile** out);
    virtual int shm_lock(ShimFile& file, int offset, int count, int flags);
    virtual void shm_barrier(ShimFile& file);
    virtual int shm_unmap(ShimFile& file, int delete_flag);

  private:
    struct Callbacks;  // the SQLite callbacks, calling the hooks (shim_vfs.cpp)
    friend struct ShimFile;

    sqlite3_vfs vfs_{};  // what SQLite calls; pAppData points back here
    const std::string name_;
    sqlite3_vfs* const below_;
    const std::size_t below_offset_;  // of the file below within each file
};

}  // namespace outpost::testing

#endif  // OUTPOST_PROOF_SHIM_VFS_H
