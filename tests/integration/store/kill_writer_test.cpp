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

// The parent's end of the ack pipe. A read may end inside a line (a full
// 4096-byte chunk splits a 37-byte line), so the partial tail is kept for
// the next call instead of being taken for an id.
class AckReader final {
  public:
    explicit AckReader(int fd) : fd_(fd) {}

    // Reads until `wanted` ids arrived in all or the pipe closed; returns
    // the ids this call completed.
    std::set<std::string> read(size_t wanted) {
        std::set<std::string> acks;
        char chunk[4096];
        while (acks.size() < wanted) {
            ssize_t got = ::read(fd_, chunk, sizeof chunk);
            if (got <= 0) break;
            buffer_.append(chunk, static_cast<size_t>(got));
            size_t newline;
            while ((newline = buffer_.find('\n')) != std::string::npos) {
                acks.insert(buffer_.substr(0, newline));
                buffer_.erase(0, newline + 1);
            }
        }
        return acks;
    }

  private:
    int fd_;
    std::string buffer_;
};

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
        AckReader reader(fds[0]);
        auto acks = reader.read(200 + 37 * static_cast<size_t>(round));
        ::kill(child, SIGKILL);
        // Ids acknowledged between our last read and the kill count too.
        auto late = reader.read(SIZE_MAX);
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
