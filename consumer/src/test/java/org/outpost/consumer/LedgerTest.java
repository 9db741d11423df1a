package org.outpost.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The dedupe transaction against real databases: a SQLite file always, and PostgreSQL when
 * OUTPOST_POSTGRES_ENV names the env file of `scripts/postgres.sh start DIR`.
 */
class LedgerTest {
    record Db(String url, String user) {
        @Override
        public String toString() {
            return url.startsWith("jdbc:sqlite") ? "sqlite" : "postgresql";
        }
    }

    static Stream<Db> databases() throws IOException {
        List<Db> list = new ArrayList<>();
        Path dir = Files.createTempDirectory("ledger-test");
        list.add(new Db("jdbc:sqlite:" + dir.resolve("alarms.db"), null));
        String env = System.getenv("OUTPOST_POSTGRES_ENV");
        if (env != null && Files.exists(Path.of(env))) {
            Properties values = new Properties();
            try (var in = Files.newInputStream(Path.of(env))) {
                values.load(in);
            }
            // A schema of its own per test: runs do not see each other's rows.
            String schema = "t" + UUID.randomUUID().toString().replace("-", "");
            String url = values.getProperty("PG_JDBC_URL");
            try (Connection c = DriverManager.getConnection(url, values.getProperty("PG_USER"), null);
                    Statement s = c.createStatement()) {
                s.execute("CREATE SCHEMA " + schema);
            } catch (SQLException e) {
                throw new IOException(e);
            }
            list.add(new Db(url + "?currentSchema=" + schema, values.getProperty("PG_USER")));
        }
        return list.stream();
    }

    private static Ledger ledger(Db db) {
        return new Ledger(db.url(), db.user(), null, "test-consumer", true, FaultPoints.parse(null));
    }

    private static Envelope event(String device, long seq, int id) {
        return Envelope.of(Samples.envelope(device, seq, Samples.eventId(id)));
    }

    private static long count(Db db, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(db.url(), db.user(), null);
                Statement s = c.createStatement();
                ResultSet r = s.executeQuery(sql)) {
            r.next();
            return r.getLong(1);
        }
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
}
