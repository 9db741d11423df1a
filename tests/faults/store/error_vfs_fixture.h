// Shared set-up of the store fault tests that inject I/O errors: one I/O
// error VFS per test process, store options that open through it, and a
// transaction that forces the WAL hook's checkpoint.
#ifndef OUTPOST_TESTS_FAULTS_STORE_ERROR_VFS_FIXTURE_H
#define OUTPOST_TESTS_FAULTS_STORE_ERROR_VFS_FIXTURE_H

#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <string>

#include "proof/io_error_vfs.h"
#include "outpost/store.h"
#include "store_fixture.h"

namespace outpost::faults {

// Registered on first use, for the whole process (SQLite keeps a pointer to
// it while any connection through it is open).
inline IoErrorVfs& error_vfs() {
    static std::unique_ptr<IoErrorVfs> vfs = [] {
        std::string error;
        auto created = IoErrorVfs::create("io-error-test", "", &error);
        if (!created) FAIL(error);
        return created;
    }();
    return *vfs;
}

// Test options through error_vfs(); SENT rows are purged at once.
inline StoreOptions options_over_errors() {
    StoreOptions options = outpost::testing::test_options();
    options.vfs_name = error_vfs().name();
    options.sent_retention = std::chrono::milliseconds(0);
    return options;
}

// One transaction big enough to pass the WAL hook's checkpoint threshold
// (1000 frames) and journal_size_limit (4 MiB): the hook checkpoints, and
// the next commit restarts the WAL and truncates it.
inline Status fill_past_checkpoint(Store& store) {
    return store
        .transact([](Transaction& tx) {
            Status status = tx.execute("CREATE TABLE IF NOT EXISTS filler (b BLOB)", {});
            if (status) status = tx.execute("INSERT INTO filler VALUES (zeroblob(5242880))", {});
            return status;
        })
        .status();
}

}  // namespace outpost::faults

#endif  // OUTPOST_TESTS_FAULTS_STORE_ERROR_VFS_FIXTURE_H
