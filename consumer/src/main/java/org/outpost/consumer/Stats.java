package org.outpost.consumer;

import java.util.List;
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
    // The queues this process holds in its consumer group, and how often that set changed
    // (written by the rebalance thread, read by the status line).
    final AtomicLong queueChanges = new AtomicLong();
    private volatile List<String> queues = List.of();

    void add(Outcome outcome) {
        applied.addAndGet(outcome.applied());
        duplicates.addAndGet(outcome.duplicates());
        quarantined.addAndGet(outcome.quarantined());
        seqGaps.addAndGet(outcome.gaps());
        seqLate.addAndGet(outcome.late());
        batches.incrementAndGet();
    }

    /** A rebalance changed the queues this process holds: `held` is the new set, as broker/queueId. */
    void queuesChanged(List<String> held) {
        queues = List.copyOf(held);
        queueChanges.incrementAndGet();
    }

    public long applied() {
        return applied.get();
    }

    public String json() {
        return String.format(
                "{\"applied\":%d,\"duplicates\":%d,\"quarantined\":%d,\"seq_gaps\":%d,\"seq_late\":%d,"
                        + "\"version_retries\":%d,\"database_errors\":%d,\"batches\":%d,\"queue_changes\":%d,"
                        + "\"queues\":[%s]}",
                applied.get(), duplicates.get(), quarantined.get(), seqGaps.get(), seqLate.get(), versionRetries.get(),
                databaseErrors.get(), batches.get(), queueChanges.get(), quoted(queues));
    }

    private static String quoted(List<String> names) {
        StringBuilder out = new StringBuilder();
        for (String name : names) out.append(out.length() == 0 ? "" : ",").append('"').append(name).append('"');
        return out.toString();
    }
}
