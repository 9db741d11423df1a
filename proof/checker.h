// The invariant checker: holds a database recovered after a crash or a power
// cut against the evidence of what its callers were told (evidence.h).
//
// What it proves, for one database and all the evidence gathered on it:
//  C1. Integrity: PRAGMA integrity_check says "ok".
//  C2. No loss: every acknowledged alarm is present, as its outbox row and
//      its alarm_record row, with the event id, device and seq it was
//      acknowledged with. The one exception is a row that was marked SENT
//      (or had a SENT mark in flight): retention or the quota may purge it,
//      and then both rows are gone together.
//  C3. Atomicity: no alarm event lacks its alarm_record row, and no
//      alarm_record row lacks its event (same id, same event id).
//  C4. No phantom: a row the callers were never told about belongs to a
//      call whose outcome was unknown (in flight at the crash, or failed
//      with kOutcomeUnknown). A row of a call that was told "nothing
//      written", or of no call at all, is a phantom. A call has at most as
//      many rows as it had attempts in doubt plus acknowledged.
//  C5. Sequence: no two events of one device share a seq, in the database or
//      among the acknowledgements. A SENT mark that returned OK is undone
//      (the row PENDING again, to be published again) only if no alarm call
//      that started after it returned, in the same run, was acknowledged:
//      marks are lazy and become durable with the next synced commit
//      (src/store/write_batch.cpp, I8). A lost mark may repeat a publish;
//      it never loses or reorders an alarm.
// Duplicates (one call stored twice after a retry without idempotency key)
// are counted, not failures: eventId and seq make them detectable downstream.
#ifndef OUTPOST_PROOF_CHECKER_H
#define OUTPOST_PROOF_CHECKER_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "proof/evidence.h"

namespace outpost::faults {

// Problem lines a report keeps: enough to diagnose a run; the counts carry
// the rest.
constexpr size_t kMaxProblems = 20;

struct CheckReport {
    uint64_t acknowledged = 0;          // acknowledged calls in the evidence
    uint64_t rows = 0;                  // alarm events in the database
    uint64_t lost = 0;                  // C2 violations
    uint64_t phantom = 0;               // C4 violations
    uint64_t in_doubt_present = 0;      // rows of calls with an unknown outcome (allowed)
    uint64_t in_doubt_absent = 0;       // calls with an unknown outcome and no row (allowed)
    uint64_t purged = 0;                // acknowledged, marked SENT, then purged (allowed)
    uint64_t duplicates = 0;            // extra rows of one call (allowed, counted)
    uint64_t marks_undone = 0;          // lazy SENT marks a power cut undid (allowed, C5)
    uint64_t integrity_failures = 0;    // C1, C3 and C5 violations
    std::vector<std::string> problems;  // one line each, at most kMaxProblems

    bool ok() const { return lost == 0 && phantom == 0 && integrity_failures == 0; }
    std::string summary() const;
};

// Opens `db_path` with SQLite's default VFS (running its recovery if the WAL
// needs it), checks C1 to C5 against `evidence`, and closes it again without
// checkpointing, so the files are left for the store to recover as it would.
// An unopenable database is reported as an integrity failure, not an error.
CheckReport check_database(const std::string& db_path, const EvidenceLog& evidence);

}  // namespace outpost::faults

#endif  // OUTPOST_PROOF_CHECKER_H
