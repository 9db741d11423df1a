package org.outpost.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.sql.SQLException;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.outpost.consumer.TestDatabases.Db;

/**
 * The dedupe transaction against real databases ({@link TestDatabases}).
 */
class LedgerTest {
    static Stream<Db> databases() throws IOException {
        return TestDatabases.databases();
    }

    private static Ledger ledger(Db db) {
        return new Ledger(db.url(), db.user(), null, "test-consumer", true, FaultPoints.parse(null));
    }

    private static Envelope event(String device, long seq, int id) {
        return Envelope.of(Samples.envelope(device, seq, Samples.eventId(id)));
    }

    private static long count(Db db, String sql) throws SQLException {
        return db.count(sql);
    }

    @ParameterizedTest
    @MethodSource("databases")
    void theSameEventDelivered100TimesChangesTheBusinessStateOnce(Db db) throws Exception {
        try (Ledger ledger = ledger(db)) {
            long applied = 0;
            long duplicates = 0;
            for (int i = 0; i < 100; i++) {
                Outcome outcome = ledger.apply(List.of(Item.apply(event("dev-1", 1, 1))));
                applied += outcome.applied();
                duplicates += outcome.duplicates();
            }
            assertEquals(1, applied);
            assertEquals(99, duplicates);
        }
        assertEquals(1, count(db, "SELECT count(*) FROM alarm"));
        assertEquals(1, count(db, "SELECT count(*) FROM processed_event WHERE consumer = 'test-consumer'"));
        assertEquals(1, count(db, "SELECT last_seq FROM device_state WHERE device_id = 'dev-1'"));
        assertEquals(0, count(db, "SELECT count(*) FROM seq_anomaly"));
    }

    @ParameterizedTest
    @MethodSource("databases")
    void aBatchThatFailsLeavesNothingAndItsRetryAppliesEachEventOnce(Db db) throws Exception {
        try (Ledger ledger = ledger(db)) {
            // The second item breaks a NOT NULL constraint: the first one's rows and dedupe
            // record must go with it (one transaction).
            Item broken = Item.quarantine(null, "broker-a", 0, 1, null, "reason", new byte[0]);
            assertThrows(SQLException.class, () -> ledger.apply(List.of(Item.apply(event("dev-1", 1, 1)), broken)));
            assertEquals(0, count(db, "SELECT count(*) FROM alarm"));
            assertEquals(0, count(db, "SELECT count(*) FROM processed_event"));
            assertEquals(0, count(db, "SELECT count(*) FROM device_state"));
            Outcome retry = ledger.apply(List.of(Item.apply(event("dev-1", 1, 1)), Item.apply(event("dev-1", 1, 1))));
            assertEquals(1, retry.applied());
            assertEquals(1, retry.duplicates());
        }
        assertEquals(1, count(db, "SELECT count(*) FROM alarm"));
    }

    @ParameterizedTest
    @MethodSource("databases")
    void seqGapsAndLateArrivalsAreAppliedAndRecordedNeverSkipped(Db db) throws Exception {
        try (Ledger ledger = ledger(db)) {
            Outcome first = ledger.apply(List.of(Item.apply(event("dev-1", 1, 1)), Item.apply(event("dev-1", 2, 2)),
                    Item.apply(event("dev-1", 4, 4))));
            assertEquals(3, first.applied());
            assertEquals(1, first.gaps());
            Outcome late = ledger.apply(List.of(Item.apply(event("dev-1", 3, 3))));
            assertEquals(1, late.late());
            assertEquals(1, late.applied());
            Outcome other = ledger.apply(List.of(Item.apply(event("dev-2", 5, 5))));
            assertEquals(1, other.gaps());  // a device first seen at seq 5 misses 1..4
        }
        assertEquals(5, count(db, "SELECT count(*) FROM alarm"));
        assertEquals(4, count(db, "SELECT last_seq FROM device_state WHERE device_id = 'dev-1'"));
        assertEquals(1, count(db, "SELECT count(*) FROM seq_anomaly WHERE kind = 'gap' AND device_id = 'dev-1' "
                + "AND expected_seq = 3 AND seq = 4"));
        assertEquals(1, count(db, "SELECT count(*) FROM seq_anomaly WHERE kind = 'late' AND expected_seq = 5 AND seq = 3"));
        assertEquals(1, count(db, "SELECT count(*) FROM seq_anomaly WHERE device_id = 'dev-2' AND expected_seq = 1"));
    }

    @ParameterizedTest
    @MethodSource("databases")
    void aRedeliveredBadMessageIsQuarantinedOnceWithItsReason(Db db) throws Exception {
        try (Ledger ledger = ledger(db)) {
            for (int i = 0; i < 3; i++) {
                ledger.apply(List.of(Item.quarantine("outpost_alarms", "broker-a", 2, 17, "k", "schema: seq must be >= 1",
                        Samples.bytes("{\"seq\":0}"))));
            }
        }
        assertEquals(1, count(db, "SELECT count(*) FROM quarantine WHERE reason = 'schema: seq must be >= 1' "
                + "AND queue_id = 2 AND queue_offset = 17"));
        assertEquals(0, count(db, "SELECT count(*) FROM alarm"));
    }

    @ParameterizedTest
    @MethodSource("databases")
    void reopeningFindsTheDedupeRecordsOfEarlierRuns(Db db) throws Exception {
        try (Ledger ledger = ledger(db)) {
            ledger.apply(List.of(Item.apply(event("dev-1", 1, 1))));
        }
        try (Ledger again = ledger(db)) {
            assertEquals(1, again.apply(List.of(Item.apply(event("dev-1", 1, 1)))).duplicates());
        }
        assertEquals(1, count(db, "SELECT count(*) FROM alarm"));
    }

    @ParameterizedTest
    @MethodSource("databases")
    void twoGatewaysSendingTheSameEventIdAreBothAppliedAndEachRedeliveryIsDropped(Db db) throws Exception {
        // gw-2 sends gw-1's eventId first: gw-1's alarm must still be applied.
        var fromOther = Samples.envelope("dev-9", 1, Samples.eventId(1));
        fromOther.put("gatewayId", "gw-2");
        try (Ledger ledger = ledger(db)) {
            assertEquals(1, ledger.apply(List.of(Item.apply(Envelope.of(fromOther)))).applied());
            assertEquals(1, ledger.apply(List.of(Item.apply(event("dev-1", 1, 1)))).applied());
            Outcome redelivered = ledger.apply(List.of(Item.apply(event("dev-1", 1, 1)),
                    Item.apply(Envelope.of(fromOther.deepCopy()))));
            assertEquals(0, redelivered.applied());
            assertEquals(2, redelivered.duplicates());
        }
        assertEquals(2, count(db, "SELECT count(*) FROM alarm WHERE event_id = '" + Samples.eventId(1) + "'"));
        assertEquals(1, count(db, "SELECT count(*) FROM alarm WHERE gateway_id = 'gw-1'"));
        assertEquals(2, count(db, "SELECT count(*) FROM processed_event"));
    }
}
