// The publisher lease: the flock refuses a second holder (another open file
// description, in this process or another), and the database epoch moves
// exactly once per acquisition, however often a waiting publisher tries.
#include "publish/lease.h"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <memory>

#include "publisher_rig.h"

using namespace std::chrono_literals;
using outpost::publish::FileLease;
using outpost::publish::lease_path_for;
using namespace outpost::testing;

TEST_CASE("the lease file sits beside the database") {
    CHECK(lease_path_for("/var/lib/outpost/outbox.db") == "/var/lib/outpost/outbox.db.lock");
}

TEST_CASE("a second descriptor on the lease file is refused until the first lets go") {
    TempDir dir;
    FileLease first(dir.file("outbox.db.lock"));
    FileLease second(dir.file("outbox.db.lock"));
    REQUIRE_OK(first.try_acquire());
    CHECK(*first.try_acquire());  // already held: still true
    CHECK(first.held());
    auto refused = second.try_acquire();
    REQUIRE_OK(refused);
    CHECK_FALSE(*refused);
    CHECK_FALSE(second.held());

    first.release();
    CHECK_FALSE(first.held());
    auto taken = second.try_acquire();
    REQUIRE_OK(taken);
    CHECK(*taken);
}

TEST_CASE("a lease held by another process is refused until that process dies") {
    TempDir dir;
    const std::string path = dir.file("outbox.db.lock");
    int ready[2];
    int hold[2];
    REQUIRE(::pipe(ready) == 0);
    REQUIRE(::pipe(hold) == 0);
    const pid_t child = ::fork();
    if (child == 0) {  // no Catch2 assertion in here: its report is the parent's
        ::close(ready[0]);
        ::close(hold[1]);  // so that the parent's close is our end of file
        FileLease lease(path);
        auto taken = lease.try_acquire();
        const char verdict = taken.is_ok() && *taken ? 'y' : 'n';
        (void)!::write(ready[1], &verdict, 1);
        char ignored;
        (void)!::read(hold[0], &ignored, 1);  // until the parent closes its end
        ::_exit(0);
    }
    REQUIRE(child > 0);
    ::close(ready[1]);
    ::close(hold[0]);
    char verdict = 0;
    REQUIRE(::read(ready[0], &verdict, 1) == 1);
    REQUIRE(verdict == 'y');

    FileLease mine(path);
    auto refused = mine.try_acquire();
    REQUIRE_OK(refused);
    CHECK_FALSE(*refused);

    ::close(hold[1]);  // the child ends; the kernel drops its lock
    int status = 0;
    REQUIRE(::waitpid(child, &status, 0) == child);
    auto taken = mine.try_acquire();
    REQUIRE_OK(taken);
    CHECK(*taken);
    ::close(ready[0]);
}

TEST_CASE("a lease file that cannot be created is an I/O error") {
    FileLease lease("/nonexistent-outpost-dir/outbox.db.lock");
    auto result = lease.try_acquire();
    REQUIRE_FALSE(result.is_ok());
    CHECK(result.status().code() == outpost::StatusCode::kIoError);
    CHECK(result.status().message().find("/nonexistent-outpost-dir/outbox.db.lock") !=
          std::string::npos);
}

TEST_CASE("the epoch moves once per acquisition, not per attempt") {
    PublisherRig rig;
    rig.start();
    REQUIRE(eventually([&] { return rig.status().lease_held; }));
    CHECK(rig.status().lease_epoch == 1);

    // A second publisher on the same database tries the lock every 10 ms
    // while the first holds it: it gets nothing and moves no epoch.
    auto waiting = std::make_unique<outpost::publish::PublisherImpl>(
        rig.store(), quick_publisher_options(), rig.broker.factory());
    waiting->launch();
    REQUIRE(eventually([&] { return waiting->status().loop_heartbeat >= 20; }));
    CHECK_FALSE(waiting->status().lease_held);
    REQUIRE(rig.stop().is_ok());

    // The holder is gone: the waiting publisher takes over with epoch 2.
    REQUIRE(eventually([&] { return waiting->status().lease_held; }));
    CHECK(waiting->status().lease_epoch == 2);
    REQUIRE(waiting->stop(1s).is_ok());
}
