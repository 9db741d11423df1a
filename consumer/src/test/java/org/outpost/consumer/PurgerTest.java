package org.outpost.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.outpost.consumer.TestDatabases.Db;

/** The dedupe record purge against real databases ({@link TestDatabases}). */
class PurgerTest {
    private static final long RETENTION_HOURS = 720;

    static Stream<Db> databases() throws IOException {
        return TestDatabases.databases();
    }

    private static Ledger ledger(Db db) {
        return new Ledger(db.url(), db.user(), null, "test-consumer", true, FaultPoints.parse(null));
    }

    private static Purger purger(Db db, int batchRows) {
        return new Purger(db.url(), db.user(), null, "test-consumer", RETENTION_HOURS, batchRows);
    }

    private static Item event(int id) {
        return Item.apply(Envelope.of(Samples.envelope("dev-" + id, 1, Samples.eventId(id))));
    }

    /** Makes the records of these events look processed {@code days} ago. */
    private static void age(Db db, int days, int... ids) throws Exception {
        String ago = db.dialect() == Dialect.SQLITE ? "strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-" + days + " days')"
                : "now() - interval '" + days + " days'";
        for (int id : ids) {
            db.execute("UPDATE processed_event SET processed_at = " + ago + " WHERE event_id = '" + Samples.eventId(id) + "'");
        }
    }

    @ParameterizedTest
    @MethodSource("databases")
    void recordsOlderThanTheHorizonArePurgedInBatchesAndRecentOnesStay(Db db) throws Exception {
        try (Ledger ledger = ledger(db)) {
            ledger.apply(List.of(event(1), event(2), event(3), event(4)));
        }
        age(db, 31, 1, 2, 3);  // past the 30-day horizon
        age(db, 29, 4);  // inside it
        db.execute("INSERT INTO processed_event (consumer, gateway_id, event_id, processed_at) "
                + "SELECT 'other-consumer', gateway_id, event_id, processed_at FROM processed_event");
        try (Purger purger = purger(db, 2)) {
            assertEquals(3, purger.purge());  // two batches: 2, then 1
            assertEquals(0, purger.purge());
        }
        assertEquals(1, db.count("SELECT count(*) FROM processed_event WHERE consumer = 'test-consumer'"));
        assertEquals(1, db.count("SELECT count(*) FROM processed_event WHERE consumer = 'test-consumer' AND event_id = '"
                + Samples.eventId(4) + "'"));
        assertEquals(4, db.count("SELECT count(*) FROM processed_event WHERE consumer = 'other-consumer'"));
        assertEquals(4, db.count("SELECT count(*) FROM alarm"));
    }

    /** Applies event 1, ages its record by {@code days}, purges, redelivers it; the redelivery's outcome. */
    private static Outcome redeliveredAfter(Db db, int days, long purgedExpected) throws Exception {
        try (Ledger ledger = ledger(db); Purger purger = purger(db, 1000)) {
            ledger.apply(List.of(event(1)));
            age(db, days, 1);
            assertEquals(purgedExpected, purger.purge());
            return ledger.apply(List.of(event(1)));
        }
    }

    @ParameterizedTest
    @MethodSource("databases")
    void aRedeliveryInsideTheHorizonIsStillDropped(Db db) throws Exception {
        Outcome redelivered = redeliveredAfter(db, 29, 0);
        assertEquals(0, redelivered.applied());
        assertEquals(1, redelivered.duplicates());
        assertEquals(1, db.count("SELECT count(*) FROM processed_event"));
        assertEquals(1, db.count("SELECT count(*) FROM alarm"));
    }

    @ParameterizedTest
    @MethodSource("databases")
    void aRepeatArrivingAfterItsRecordWasPurgedChangesNothing(Db db) throws Exception {
        Outcome repeat = redeliveredAfter(db, 31, 1);
        assertEquals(0, repeat.applied());
        assertEquals(1, repeat.duplicates());
        assertEquals(1, db.count("SELECT count(*) FROM alarm"));
        assertEquals(0, db.count("SELECT count(*) FROM seq_anomaly"));
    }
}
