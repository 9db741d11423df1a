package org.outpost.consumer;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * The consumer's database: business effect and dedupe record in one transaction.
 *
 * <p>Invariants (what makes "exactly once" out of RocketMQ's "at least once"):
 *
 * <ol>
 *   <li>I1. An event's business rows (alarm, device_state, seq_anomaly) are written only in the
 *       transaction that inserts its dedupe record (consumer, gatewayId, eventId); {@link #claim} inserts a
 *       batch's records first and returns the keys it inserted. A second delivery finds the record
 *       (committed by an earlier batch, or claimed earlier in the same one) and writes nothing.
 *   <li>I2. {@link #apply} returns only after COMMIT returned; the caller acknowledges the offset
 *       to RocketMQ only after that. A crash before the COMMIT leaves nothing (the redelivery
 *       applies it); a crash after the COMMIT and before the offset ack leaves the rows and the
 *       record (the redelivery is a duplicate, I1).
 *   <li>I3. The COMMIT is durable when it returns: SQLite in WAL mode with synchronous=FULL,
 *       PostgreSQL with its default synchronous_commit=on. Otherwise a power cut could lose a
 *       committed batch whose offset RocketMQ already holds.
 *   <li>I4. Nothing is skipped in silence: a seq gap or a late seq is applied and recorded
 *       (seq_anomaly, log, counter); a bad message is recorded in quarantine with its reason.
 *   <li>I5. The {@link Purger} deletes dedupe records older than dedupe_retention_hours; a repeat
 *       arriving later still changes nothing here, because the alarm row (same key) is kept: it is
 *       inserted first, and an alarm already there makes the event a duplicate. (An application
 *       whose effects leave no such row must keep its records longer than any repeat can come.)
 * </ol>
 *
 * <p>One connection, one batch at a time (apply is synchronized): SQLite has one writer anyway,
 * and the orderly listener already serialises each queue.
 */
public final class Ledger implements AutoCloseable {
    private final String url;
    private final Properties credentials;
    private final Dialect dialect;
    private final String consumer;
    private final boolean dedupe;
    private final FaultPoints faults;
    private Connection connection;
    // Prepared once per connection (the same few statements for every event).
    private final Map<String, PreparedStatement> statements = new HashMap<>();

    /**
     * @param consumer the dedupe namespace: two consumers with different names each apply every
     *     event once
     * @param dedupe false only for the throughput bench (no dedupe record: only the alarm row's key)
     */
    public Ledger(String url, String user, String password, String consumer, boolean dedupe, FaultPoints faults) {
        this.url = url;
        this.dialect = Dialect.ofUrl(url);
        this.credentials = credentials(user, password);
        this.consumer = consumer;
        this.dedupe = dedupe;
        this.faults = faults;
    }

    public Dialect dialect() {
        return dialect;
    }

    /**
     * Connects (if not connected) and brings the schema to the version this consumer knows
     * ({@link Migrations}); Migrations.TooNewException if a newer consumer migrated it.
     */
    public synchronized void open() throws SQLException {
        if (connection != null) return;
        Connection opened = connect(url, credentials, dialect);
        try {
            Migrations.migrate(opened, dialect);
        } catch (SQLException | RuntimeException e) {
            opened.close();
            throw e;
        }
        opened.setAutoCommit(false);
        connection = opened;
    }

    /** A connection set up for the ledger's transactions (I3), in auto-commit mode. */
    static Connection connect(String url, Properties credentials, Dialect dialect) throws SQLException {
        Connection opened = DriverManager.getConnection(url, credentials);
        try (Statement statement = opened.createStatement()) {
            if (dialect == Dialect.SQLITE) {
                statement.execute("PRAGMA busy_timeout = 10000");  // the purge's short transactions: wait, not fail
                statement.execute("PRAGMA journal_mode = WAL");
                statement.execute("PRAGMA synchronous = FULL");  // I3: a returned COMMIT survives a power cut
            } else {
                statement.execute("SET synchronous_commit = on");  // I3, whatever the server default
            }
        } catch (SQLException | RuntimeException e) {
            opened.close();
            throw e;
        }
        return opened;
    }

    static Properties credentials(String user, String password) {
        Properties credentials = new Properties();
        if (user != null) credentials.setProperty("user", user);
        if (password != null) credentials.setProperty("password", password);
        return credentials;
    }

    /**
     * Applies a batch in one transaction and commits it. On SQLException the transaction is rolled
     * back and the connection dropped (the next call reconnects): nothing of the batch is applied
     * and the caller must not acknowledge it. A COMMIT that failed may still have happened; the
     * redelivery is then a duplicate (I1).
     */
    public synchronized Outcome apply(List<Item> items) throws SQLException {
        open();
        Outcome outcome = new Outcome();
        try {
            Set<EventKey> firsts = dedupe ? claim(items) : null;
            for (Item item : items) {
                if (item.quarantined()) {
                    quarantine(item, outcome);
                } else if (firsts != null && !firsts.remove(EventKey.of(item.envelope()))) {
                    outcome.duplicates++;  // I1: applied before (or earlier in this batch)
                } else {
                    applyOne(item.envelope(), outcome);
                }
            }
            faults.hit("consumer.before_commit");
            connection.commit();  // I2, I3: the one point where the batch becomes true
        } catch (SQLException | RuntimeException e) {
            drop();
            throw e;
        }
        faults.hit("consumer.after_commit");
        return outcome;
    }

    private void applyOne(Envelope event, Outcome outcome) throws SQLException {
        if (!insertAlarm(event)) {
            // I5: a repeat that outlived its dedupe record (purged) still finds its alarm row.
            outcome.duplicates++;
            outcome.lines.add("repeat of " + event.gatewayId() + " eventId " + event.eventId()
                    + " arrived after its dedupe record was purged (dedupe_retention_hours); its alarm row "
                    + "was there, nothing applied");
            return;
        }
        Long lastSeq = null;
        PreparedStatement select = statement(
                "SELECT last_seq FROM device_state WHERE gateway_id = ? AND device_id = ?");
        select.setString(1, event.gatewayId());
        select.setString(2, event.deviceId());
        try (ResultSet row = select.executeQuery()) {
            if (row.next()) lastSeq = row.getLong(1);
        }

        long expected = lastSeq == null ? 1 : lastSeq + 1;
        if (event.seq() != expected) {
            String kind = event.seq() > expected ? "gap" : "late";
            recordAnomaly(event, kind, expected);
            if (kind.equals("gap")) {
                outcome.gaps++;
                outcome.lines.add("seq gap: device " + event.gatewayId() + "/" + event.deviceId() + " expected seq "
                        + expected + ", got " + event.seq() + " (" + (event.seq() - expected) + " missing so far) eventId "
                        + event.eventId());
            } else {
                outcome.late++;
                outcome.lines.add("seq late: device " + event.gatewayId() + "/" + event.deviceId() + " already at seq "
                        + lastSeq + ", got seq " + event.seq() + " (new eventId " + event.eventId()
                        + "): applied, latest state kept");
            }
        }
        if (lastSeq == null || event.seq() > lastSeq) moveDeviceState(event);
        outcome.applied++;
    }

    /** The dedupe key within a consumer: an eventId is unique only among its gateway's events. */
    private record EventKey(String gatewayId, String eventId) {
        static EventKey of(Envelope event) {
            return new EventKey(event.gatewayId(), event.eventId());
        }
    }

    /**
     * Inserts the dedupe records of the batch's events in one statement and returns the keys it
     * inserted: the events this batch is the first to apply. The others were applied by an
     * earlier, committed batch (I1).
     */
    private Set<EventKey> claim(List<Item> items) throws SQLException {
        Set<EventKey> keys = new LinkedHashSet<>();
        for (Item item : items) {
            if (!item.quarantined()) keys.add(EventKey.of(item.envelope()));
        }
        Set<EventKey> inserted = new HashSet<>();
        if (keys.isEmpty()) return inserted;
        StringBuilder sql = new StringBuilder("INSERT INTO processed_event (consumer, gateway_id, event_id) VALUES ");
        for (int i = 0; i < keys.size(); i++) sql.append(i == 0 ? "(?, ?, ?)" : ", (?, ?, ?)");
        sql.append(" ON CONFLICT DO NOTHING RETURNING gateway_id, event_id");
        PreparedStatement insert = statement(sql.toString());
        int index = 1;
        for (EventKey key : keys) {
            insert.setString(index++, consumer);
            insert.setString(index++, key.gatewayId());
            insert.setString(index++, key.eventId());
        }
        try (ResultSet rows = insert.executeQuery()) {
            while (rows.next()) inserted.add(new EventKey(rows.getString(1), rows.getString(2)));
        }
        return inserted;
    }

    /** False if the alarm row was already there (I5). */
    private boolean insertAlarm(Envelope event) throws SQLException {
        PreparedStatement insert = statement(
                "INSERT INTO alarm (event_id, gateway_id, device_id, seq, event_type, alarm_type, severity, value, unit, "
                        + "text, occurred_at, boot_id, uptime_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                        + "ON CONFLICT (gateway_id, event_id) DO NOTHING");
        insert.setString(1, event.eventId());
        insert.setString(2, event.gatewayId());
        insert.setString(3, event.deviceId());
        insert.setLong(4, event.seq());
        insert.setString(5, event.eventType());
        insert.setString(6, event.alarmType());
        insert.setString(7, event.severity());
        setDouble(insert, 8, event.value());
        insert.setString(9, event.unit());
        insert.setString(10, event.text());
        insert.setString(11, event.occurredAt());
        insert.setString(12, event.bootId());
        insert.setLong(13, event.uptimeMs());
        return insert.executeUpdate() > 0;
    }

    private void moveDeviceState(Envelope event) throws SQLException {
        PreparedStatement upsert = statement(
                "INSERT INTO device_state (gateway_id, device_id, last_seq, last_event_id, last_event_type, alarm_type, "
                        + "severity, value, occurred_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) "
                        + "ON CONFLICT (gateway_id, device_id) DO UPDATE SET last_seq = excluded.last_seq, "
                        + "last_event_id = excluded.last_event_id, last_event_type = excluded.last_event_type, "
                        + "alarm_type = excluded.alarm_type, severity = excluded.severity, value = excluded.value, "
                        + "occurred_at = excluded.occurred_at, updated_at = " + (dialect == Dialect.SQLITE
                                ? "strftime('%Y-%m-%dT%H:%M:%fZ', 'now')" : "now()"));
        upsert.setString(1, event.gatewayId());
        upsert.setString(2, event.deviceId());
        upsert.setLong(3, event.seq());
        upsert.setString(4, event.eventId());
        upsert.setString(5, event.eventType());
        upsert.setString(6, event.alarmType());
        upsert.setString(7, event.severity());
        setDouble(upsert, 8, event.value());
        upsert.setString(9, event.occurredAt());
        upsert.executeUpdate();
    }

    private void recordAnomaly(Envelope event, String kind, long expected) throws SQLException {
        PreparedStatement insert = statement(
                "INSERT INTO seq_anomaly (consumer, gateway_id, device_id, kind, expected_seq, seq, event_id) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?)");
        insert.setString(1, consumer);
        insert.setString(2, event.gatewayId());
        insert.setString(3, event.deviceId());
        insert.setString(4, kind);
        insert.setLong(5, expected);
        insert.setLong(6, event.seq());
        insert.setString(7, event.eventId());
        insert.executeUpdate();
    }

    private void quarantine(Item item, Outcome outcome) throws SQLException {
        PreparedStatement insert = statement(
                "INSERT INTO quarantine (consumer, topic, broker, queue_id, queue_offset, message_keys, reason, body) "
                        + "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING");
        insert.setString(1, consumer);
        insert.setString(2, item.topic());
        insert.setString(3, item.broker());
        insert.setInt(4, item.queueId());
        insert.setLong(5, item.queueOffset());
        insert.setString(6, item.keys());
        insert.setString(7, item.reason());
        insert.setBytes(8, item.body());
        if (insert.executeUpdate() > 0) {
            outcome.quarantined++;
            outcome.lines.add("quarantined " + item.topic() + "/" + item.broker() + "/" + item.queueId() + "@"
                    + item.queueOffset() + " (KEYS " + item.keys() + "): " + item.reason());
        }
    }

    private PreparedStatement statement(String sql) throws SQLException {
        PreparedStatement prepared = statements.get(sql);
        if (prepared == null) {
            prepared = connection.prepareStatement(sql);
            statements.put(sql, prepared);
        }
        return prepared;
    }

    private static void setDouble(PreparedStatement statement, int index, Double value) throws SQLException {
        if (value == null) statement.setNull(index, Types.DOUBLE);
        else statement.setDouble(index, value);
    }

    private void drop() {
        if (connection == null) return;
        statements.clear();  // closed with their connection
        discard(connection);
        connection = null;
    }

    /** Rolls back what the connection has not committed and closes it, whatever state it is in. */
    static void discard(Connection connection) {
        try {
            connection.rollback();
        } catch (SQLException ignored) {
            // the connection may be gone; closing it below is all that is left
        }
        try {
            connection.close();
        } catch (SQLException ignored) {
            // same
        }
    }

    @Override
    public synchronized void close() {
        drop();
    }
}
