package org.outpost.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.outpost.consumer.TestDatabases.Db;

/** The schema's versioned migrations against real databases ({@link TestDatabases}). */
class MigrationsTest {
    static Stream<Db> databases() throws IOException {
        return TestDatabases.databases();
    }

    private static Ledger ledger(Db db) {
        return new Ledger(db.url(), db.user(), null, "test-consumer", true, FaultPoints.parse(null));
    }

    /** A database as an outpost-consumer without schema versions left it: tables, rows, no version. */
    private static void createUnversioned(Db db) throws Exception {
        db.execute(Migrations.statements(db.dialect(), 1).toArray(String[]::new));
        String eventId = Samples.eventId(1);
        db.execute("INSERT INTO processed_event (consumer, event_id) VALUES ('test-consumer', '" + eventId + "')",
                "INSERT INTO alarm (event_id, gateway_id, device_id, seq, event_type, alarm_type, severity, value, unit, "
                        + "text, occurred_at, boot_id, uptime_ms) VALUES ('" + eventId + "', 'gw-1', 'dev-1', 1, "
                        + "'ALARM_RAISED', 'overheat', 'critical', 97.5, 'C', NULL, '1970-01-01T00:00:12.345Z', "
                        + "'6f1c0d2e-1111-4a4a-9b9b-000000000001', 12345)",
                "INSERT INTO device_state (gateway_id, device_id, last_seq, last_event_id, last_event_type, "
                        + "occurred_at) VALUES ('gw-1', 'dev-1', 1, '" + eventId + "', 'ALARM_RAISED', "
                        + "'1970-01-01T00:00:12.345Z')");
    }

    @ParameterizedTest
    @MethodSource("databases")
    void aDatabaseCreatedWithoutSchemaVersionsMigratesInPlaceAndKeepsItsRows(Db db) throws Exception {
        createUnversioned(db);
        try (Ledger ledger = ledger(db)) {
            // The event of the old database is still known: its redelivery changes nothing.
            Outcome redelivered = ledger.apply(List.of(Item.apply(Envelope.of(
                    Samples.envelope("dev-1", 1, Samples.eventId(1))))));
            assertEquals(1, redelivered.duplicates());
            assertEquals(0, redelivered.applied());
            assertEquals(1, ledger.apply(List.of(Item.apply(Envelope.of(
                    Samples.envelope("dev-1", 2, Samples.eventId(2)))))).applied());
        }
        assertEquals(Migrations.latest(), db.count("SELECT max(version) FROM " + Migrations.VERSION_TABLE));
        assertEquals(Migrations.latest(), db.count("SELECT count(*) FROM " + Migrations.VERSION_TABLE));
        assertEquals(2, db.count("SELECT count(*) FROM alarm"));
        assertEquals(2, db.count("SELECT count(*) FROM processed_event"));
        // The old record took the gateway of its alarm row.
        assertEquals(2, db.count("SELECT count(*) FROM processed_event WHERE gateway_id = 'gw-1'"));
        assertEquals(2, db.count("SELECT last_seq FROM device_state WHERE device_id = 'dev-1'"));
        assertEquals(0, db.count("SELECT count(*) FROM seq_anomaly"));
    }

    @ParameterizedTest
    @MethodSource("databases")
    void aDatabaseFromANewerConsumerIsRefusedAndLeftAsItIs(Db db) throws Exception {
        try (Ledger ledger = ledger(db)) {
            ledger.open();
        }
        int newer = Migrations.latest() + 1;
        db.execute("INSERT INTO " + Migrations.VERSION_TABLE + " (version, name) VALUES (" + newer + ", '999_future')");
        try (Ledger ledger = ledger(db)) {
            Migrations.TooNewException refused = assertThrows(Migrations.TooNewException.class, ledger::open);
            assertTrue(refused.getMessage().contains("schema version " + newer + ", newer than this outpost-consumer"),
                    refused.getMessage());
        }
        assertEquals(newer, db.count("SELECT max(version) FROM " + Migrations.VERSION_TABLE));
    }

    @ParameterizedTest
    @MethodSource("databases")
    void openingACurrentDatabaseAgainAppliesNothing(Db db) throws Exception {
        for (int i = 0; i < 2; i++) {
            try (Ledger ledger = ledger(db)) {
                ledger.open();
            }
        }
        assertEquals(Migrations.latest(), db.count("SELECT count(*) FROM " + Migrations.VERSION_TABLE));
    }

    @ParameterizedTest
    @MethodSource("databases")
    void thePrintedScriptBuildsTheSchemaTheConsumerAccepts(Db db) throws Exception {
        db.execute(Migrations.split(Migrations.script(db.dialect())).toArray(String[]::new));
        try (Ledger ledger = ledger(db)) {
            assertEquals(1, ledger.apply(List.of(Item.apply(Envelope.of(
                    Samples.envelope("dev-1", 1, Samples.eventId(1)))))).applied());
        }
        assertEquals(Migrations.latest(), db.count("SELECT count(*) FROM " + Migrations.VERSION_TABLE));
    }

    @Test
    void eachDialectHasEveryMigrationNumberedWithoutGaps() throws Exception {
        for (int i = 0; i < Migrations.NAMES.size(); i++) {
            assertTrue(Migrations.NAMES.get(i).matches(String.format("%03d_[a-z0-9_]+", i + 1)), Migrations.NAMES.get(i));
        }
        String repo = System.getProperty("outpost.repo");
        for (Dialect dialect : Dialect.values()) {
            Path dir = Path.of(repo == null ? ".." : repo, "consumer/src/main/resources/migrations", dialect.label());
            List<String> files = new ArrayList<>();
            try (Stream<Path> listing = Files.list(dir)) {
                listing.map(path -> path.getFileName().toString().replaceFirst("\\.sql$", "")).sorted()
                        .forEach(files::add);
            }
            assertEquals(Migrations.NAMES, files, dir + " holds other migrations than Migrations.NAMES lists");
            for (int version = 1; version <= Migrations.latest(); version++) {
                assertTrue(!Migrations.statements(dialect, version).isEmpty());
            }
        }
    }
}
