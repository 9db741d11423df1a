// Evidence of what a workload was told, kept outside the process under test.
//
// The workload (a child process) reports every call it starts and how each
// ended through a pipe to its parent. A SIGKILL or a simulated power cut of
// the child cannot take back a line already written: the pipe belongs to the
// kernel and the parent reads it to EOF. The checker (checker.h) then holds
// the recovered database against this evidence.
//
// Line format, one write(2) per line, each at most PIPE_BUF bytes (so lines
// of several threads never interleave):
//   S <token> <k|-> [<key>]                 call started (k: has an idempotency key)
//   A <token> <event_id> <device> <seq> <0|1>  call acknowledged (1: duplicate)
//   F <token> <status code name>            call failed
//   M <event_id> ...                        SENT mark started for these events
//   m <event_id> ...                        SENT mark returned OK
//   P                                       purge started
//   N <name> <value>                        a figure the parent may print
// A token names one logical call (the alarm's text holds it); a retry of the
// same call after an unknown outcome reuses the token and the key. Each
// read_all (or begin_run) is one run; the order of lines within it is the order of
// their writes, which is what mark_may_be_undone relies on.
#ifndef OUTPOST_PROOF_EVIDENCE_H
#define OUTPOST_PROOF_EVIDENCE_H

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "outpost/alarm.h"
#include "outpost/status.h"

namespace outpost::faults {

// How one attempt of a call ended, as far as the caller could know.
enum class CallOutcome {
    kInFlight,      // started, never returned (the process died first)
    kAcknowledged,  // returned OK: the promise applies
    kNotWritten,    // returned an error the API documents as "nothing written"
    kUnknown,       // returned kOutcomeUnknown or an error without that promise
};

// Classifies a record_alarm status by the API contract in outpost/store.h.
CallOutcome outcome_of(const Status& status);
// The same for a failure known by its status code name ("io_error", ...).
CallOutcome failure_outcome(const std::string& code);

struct CallAttempt {
    CallOutcome outcome = CallOutcome::kInFlight;
    std::string event_id;  // when acknowledged
    std::string device_id;
    int64_t seq = 0;
    bool duplicate = false;  // the store matched the idempotency key
    std::string code;        // status code name when failed
    // Where its S line stood: the child run (read_all call) and the line's
    // number in the whole log. Lines of one run are in write(2) order.
    uint64_t run = 0;
    uint64_t started_line = 0;
};

struct CallEvidence {
    bool keyed = false;
    std::string key;
    std::vector<CallAttempt> attempts;  // in start order

    bool acknowledged() const;
    // True if some attempt may have written a row the caller was not told of.
    bool in_doubt() const;
};

class EvidenceLog;

// Writes evidence lines to a file descriptor (a pipe). Thread-safe: every
// line is one write(2). Errors writing are ignored: the reader sees EOF.
// The second form applies the lines to a log in this process instead (for a
// parent's own calls); that form is not thread-safe.
class EvidenceWriter final {
  public:
    explicit EvidenceWriter(int fd) : fd_(fd) {}
    explicit EvidenceWriter(EvidenceLog* log) : log_(log) {}
    void started(const std::string& token, const std::string& key) const;
    void acknowledged(const std::string& token, const RecordedEvent& event) const;
    void failed(const std::string& token, const Status& status) const;
    void marking(const std::vector<std::string>& event_ids) const;
    void marked(const std::vector<std::string>& event_ids) const;
    void purging() const;
    void figure(const std::string& name, uint64_t value) const;

  private:
    void line(const std::string& text) const;
    void id_lines(char tag, const std::vector<std::string>& event_ids) const;
    int fd_ = -1;
    EvidenceLog* log_ = nullptr;
};

// Everything the parent learned, accumulated over every run on one database.
class EvidenceLog final {
  public:
    // Reads `fd` to EOF, applying every complete line. A partial last line
    // (impossible with single writes, but cheap to tolerate) is ignored.
    // Returns false with *error set on a malformed line.
    bool read_all(int fd, std::string* error);
    // Lines applied from now on belong to a new run (a new process
    // lifetime, after a crash or cut of the one before). read_all begins one
    // itself; a parent that records calls of its own after a cut calls this.
    void begin_run() { ++run_; }
    bool apply(const std::string& line, std::string* error);

    const std::map<std::string, CallEvidence>& calls() const { return calls_; }
    bool mark_started(const std::string& event_id) const {
        return mark_started_.count(event_id) > 0;
    }
    bool mark_acknowledged(const std::string& event_id) const {
        return mark_acknowledged_.count(event_id) > 0;
    }
    const std::set<std::string>& marks_acknowledged() const { return mark_acknowledged_; }
    // True if a power cut may have undone the last acknowledged SENT mark of
    // `event_id`: marks are lazy (src/store/write_batch.cpp, I8), so only a
    // synced commit after the mark makes it durable, and every acknowledged
    // alarm call that started after the mark returned, in the same run,
    // committed after it with a sync.
    bool mark_may_be_undone(const std::string& event_id) const;
    uint64_t purges() const { return purges_; }
    // Figures reported by the last run ("N" lines), latest value wins.
    const std::map<std::string, uint64_t>& figures() const { return figures_; }
    void clear_figures() { figures_.clear(); }

    // Calls whose outcome is still open (never acknowledged, last attempt in
    // flight or unknown): what a careful application retries after a crash.
    std::vector<std::string> open_calls() const;
    uint64_t acknowledged_calls() const;
    // The event ids of every acknowledged attempt.
    std::set<std::string> acknowledged_event_ids() const;

  private:
    std::map<std::string, CallEvidence> calls_;
    std::set<std::string> mark_started_;
    std::set<std::string> mark_acknowledged_;
    struct Position {
        uint64_t run = 0;
        uint64_t line = 0;
    };
    std::map<std::string, Position> last_mark_acknowledged_;  // by event id
    // Per run: the latest S line of a call attempt that was acknowledged.
    std::map<uint64_t, uint64_t> last_acknowledged_start_;
    uint64_t run_ = 0;   // read_all calls so far
    uint64_t line_ = 0;  // lines applied so far
    uint64_t purges_ = 0;
    std::map<std::string, uint64_t> figures_;
};

}  // namespace outpost::faults

#endif  // OUTPOST_PROOF_EVIDENCE_H
