package org.outpost.consumer;

import java.util.concurrent.atomic.AtomicLong;

/** The consumer's counters since it started; {@link #json()} is the status line's body. */
public final class Stats {
    final AtomicLong applied = new AtomicLong();
    final AtomicLong duplicates = new AtomicLong();
    final AtomicLong quarantined = new AtomicLong();
    final AtomicLong seqGaps = new AtomicLong();
    final AtomicLong seqLate = new AtomicLong();
    final AtomicLong versionRetries = new AtomicLong();
    final AtomicLong databaseErrors = new AtomicLong();
    final AtomicLong batches = new AtomicLong();

    void add(Outcome outcome) {
        applied.addAndGet(outcome.applied());
        duplicates.addAndGet(outcome.duplicates());
        quarantined.addAndGet(outcome.quarantined());
        seqGaps.addAndGet(outcome.gaps());
        seqLate.addAndGet(outcome.late());
        batches.incrementAndGet();
    }

    public long applied() {
        return applied.get();
    }

    public String json() {
        return String.format(
                "{\"applied\":%d,\"duplicates\":%d,\"quarantined\":%d,\"seq_gaps\":%d,\"seq_late\":%d,"
                        + "\"version_retries\":%d,\"database_errors\":%d,\"batches\":%d}",
                applied.get(), duplicates.get(), quarantined.get(), seqGaps.get(), seqLate.get(), versionRetries.get(),
                databaseErrors.get(), batches.get());
    }
}
