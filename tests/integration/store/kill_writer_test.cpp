// A writer killed with SIGKILL mid-stream loses no acknowledged alarm.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

#include "outpost/store.h"
#include "raw_sqlite.h"
#include "store_fixture.h"
#include "temp_dir.h"

using namespace outpost;
using namespace outpost::testing;

namespace {

// In a forked child: 4 threads record alarms forever and write each
// acknowledged event id, newline-terminated, to `ack_fd`. A pipe survives
// the child's death, so the parent holds the evidence of every ack.
[[noreturn]] void run_writer_child(const std::string& path, int ack_fd) {
    auto store = Store::open(path, test_options());
    if (!store) _exit(3);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            for (;;) {
                auto result = (*store)->record_alarm(sample_alarm("dev-" + std::to_string(t)));
                if (!result) _exit(4);
                std::string line = result->event_id + "\n";
                if (::write(ack_fd, line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
                    _exit(5);
                }
            }
        });
    }
    for (auto& thread : threads) thread.join();
    _exit(0);
}

// Reads acknowledged ids from `fd` until `wanted` arrived; returns them all.
std::set<std::string> read_acks(int fd, size_t wanted) {
    std::set<std::string> acks;
    std::string buffer;
    char chunk[4096];
    while (acks.size() < wanted) {
        ssize_t got = ::read(fd, chunk, sizeof chunk);
        if (got <= 0) break;
        buffer.append(chunk, static_cast<size_t>(got));
        size_t newline;
        while ((newline = buffer.find('\n')) != std::string::npos) {
            acks.insert(buffer.substr(0, newline));
            buffer.erase(0, newline + 1);
        }
    }
    return acks;
}

}  // namespace

TEST_CASE("every alarm acknowledged before a SIGKILL is in the database after reopening") {
    TempDir dir;
    const std::string path = dir.file("o.db");
    open_store(path, test_options());  // create it before the children race to
    std::set<std::string> acknowledged;
    for (int round = 0; round < 5; ++round) {
        int fds[2];
        REQUIRE(::pipe(fds) == 0);
        pid_t child = ::fork();
        if (child == 0) {  // no Catch2 assertion may run in the child
            ::close(fds[0]);
            run_writer_child(path, fds[1]);
        }
        REQUIRE(child > 0);
        ::close(fds[1]);
        auto acks = read_acks(fds[0], 200 + 37 * static_cast<size_t>(round));
        ::kill(child, SIGKILL);
        // Ids acknowledged between our last read and the kill count too.
        auto late = read_acks(fds[0], SIZE_MAX);
        ::close(fds[0]);
        int status = 0;
        REQUIRE(::waitpid(child, &status, 0) == child);
        REQUIRE(WIFSIGNALED(status));
        acks.insert(late.begin(), late.end());
        INFO("round " << round << ": " << acks.size() << " acknowledged before the kill");
        REQUIRE(acks.size() >= 200);
        acknowledged.insert(acks.begin(), acks.end());

        auto store = open_store(path, test_options());  // recovery runs here
        RawSqlite db(path);
        CHECK(db.text("PRAGMA integrity_check") == "ok");
        std::set<std::string> stored;
        for (const auto& id : db.column("SELECT event_id FROM outbox")) stored.insert(id);
        size_t missing = 0;
        for (const auto& id : acknowledged) missing += stored.count(id) == 0 ? 1 : 0;
        CHECK(missing == 0);
        CHECK(db.integer("SELECT count(*) FROM outbox o LEFT JOIN alarm_record a USING (id) "
                         "WHERE a.id IS NULL") == 0);
        // Sequence numbers stay unique and gap-free per device across kills.
        for (const auto& device : db.column("SELECT DISTINCT device_id FROM outbox")) {
            CHECK(db.integer("SELECT count(DISTINCT seq) FROM outbox WHERE device_id = '" + device + "'") ==
                  db.integer("SELECT max(seq) FROM outbox WHERE device_id = '" + device + "'"));
        }
    }
}
