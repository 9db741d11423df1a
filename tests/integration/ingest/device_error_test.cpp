// A storage device that fails under the socket: the client hears the store's
// exact verdict — outcome_unknown when the alarm may exist — and a retry with
// the same idempotency key ends with exactly one stored alarm.
#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "ingest_harness.h"
#include "proof/io_error_vfs.h"
#include "raw_sqlite.h"

using outpost::faults::IoErrorVfs;
using outpost::faults::IoFault;
using outpost::faults::IoOp;
using outpost::testing::call;
using outpost::testing::error_code;
using outpost::testing::IngestHarness;

namespace {

IoErrorVfs& error_vfs() {
    static std::unique_ptr<IoErrorVfs> vfs = [] {
        std::string error;
        auto created = IoErrorVfs::create("ingest-io-error", "", &error);
        if (!created) throw std::runtime_error(error);
        return created;
    }();
    return *vfs;
}

}  // namespace

TEST_CASE("a failed WAL sync is answered outcome_unknown and a keyed retry stores one alarm",
          "[ingest]") {
    error_vfs().clear();
    outpost::StoreOptions store_options = outpost::testing::test_options();
    store_options.vfs_name = error_vfs().name();
    IngestHarness harness({}, {}, true, store_options);
    auto client = harness.connect();
    REQUIRE(call(*client, outpost::testing::alarm_request("pump-1"))["ok"] == true);

    IoFault fault;
    fault.op = IoOp::kSync;
    fault.path_suffix = "-wal";
    error_vfs().inject(fault);
    auto doubtful = call(*client, outpost::testing::alarm_request("pump-1", "pump-1-n-2"));
    INFO(doubtful.dump());
    CHECK(error_code(doubtful) == "outcome_unknown");
    CHECK(error_vfs().failures() == 1);

    error_vfs().clear();
    auto retried = call(*client, outpost::testing::alarm_request("pump-1", "pump-1-n-2"));
    INFO(retried.dump());
    REQUIRE(retried["ok"] == true);
    auto again = call(*client, outpost::testing::alarm_request("pump-1", "pump-1-n-2"));
    CHECK(again["duplicate"] == true);
    CHECK(again["eventId"] == retried["eventId"]);

    harness.server->stop();
    harness.store.reset();
    outpost::testing::RawSqlite raw(harness.db_path, SQLITE_OPEN_READONLY);
    CHECK(raw.integer("SELECT count(*) FROM outbox WHERE idempotency_key = 'pump-1-n-2'") == 1);
    CHECK(raw.integer("SELECT count(*) FROM outbox") == 2);
}
