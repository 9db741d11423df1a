package org.outpost.consumer;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * The consumer's schema as numbered, forward-only migrations: the SQL resources
 * {@code migrations/<dialect>/NNN_name.sql}, one set per {@link Dialect}, listed in {@link #NAMES}.
 *
 * <p>Invariants:
 *
 * <ol>
 *   <li>M1. The table {@code outpost_consumer_schema} holds one row per migration applied; the
 *       database's version is its highest {@code version} (0 without the table).
 *   <li>M2. Each migration runs in one transaction with the row that records it: a crash or an error
 *       leaves the database at the version before, never half-migrated (SQLite and PostgreSQL both
 *       roll DDL back).
 *   <li>M3. One migrator at a time: the transaction first takes the database's write lock (SQLite:
 *       BEGIN IMMEDIATE) or an advisory lock (PostgreSQL), then reads the version. Two consumers
 *       starting together apply each migration once; the second finds the version moved.
 *   <li>M4. A database at a higher version than {@link #NAMES} knows was migrated by a newer
 *       consumer: it is refused ({@link TooNewException}), never used or changed.
 * </ol>
 *
 * <p>A resource file holds statements ending with ';' at the end of a line; lines starting with
 * "--" are comments.
 */
final class Migrations {
    /** The migrations in order; version N is NAMES.get(N - 1). Add at the end, never edit one. */
    static final List<String> NAMES = List.of("001_initial", "002_dedupe_per_gateway", "003_processed_event_age_index");

    static final String VERSION_TABLE = "outpost_consumer_schema";
    // pg_advisory_xact_lock key: "outpost" in ASCII, the one lock every consumer's migration takes.
    private static final long ADVISORY_LOCK_KEY = 0x6f7574706f7374L;

    /** The database was migrated by a newer outpost-consumer. */
    static final class TooNewException extends SQLException {
        private static final long serialVersionUID = 1L;

        TooNewException(int found) {
            super("the database is at schema version " + found + ", newer than this outpost-consumer knows ("
                    + latest() + "): a newer outpost-consumer migrated it, and migrations go forward only; run that "
                    + "newer outpost-consumer (or one at least as new) against it");
        }
    }

    private Migrations() {}

    static int latest() {
        return NAMES.size();
    }

    /** The statements of migration {@code version} (1-based) for {@code dialect}. */
    static List<String> statements(Dialect dialect, int version) {
        return split(text(dialect, version));
    }

    /** The resource text of migration {@code version}; IllegalStateException if it is missing. */
    static String text(Dialect dialect, int version) {
        String path = "/migrations/" + dialect.label() + "/" + NAMES.get(version - 1) + ".sql";
        try (InputStream in = Migrations.class.getResourceAsStream(path)) {
            if (in == null) throw new IllegalStateException("migration " + path + " is missing from the jar");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read migration " + path + ": " + e.getMessage(), e);
        }
    }

    static List<String> split(String text) {
        List<String> statements = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : text.split("\n", -1)) {
            if (line.stripLeading().startsWith("--")) continue;
            if (current.length() > 0 || !line.isBlank()) current.append(line).append('\n');
            if (line.stripTrailing().endsWith(";")) {
                String statement = current.toString().strip();
                statements.add(statement.substring(0, statement.length() - 1));
                current.setLength(0);
            }
        }
        if (!current.toString().isBlank()) {
            throw new IllegalStateException("a migration ends without ';': " + current.toString().strip());
        }
        return statements;
    }

    static String versionTableDdl(Dialect dialect) {
        return "CREATE TABLE IF NOT EXISTS " + VERSION_TABLE + " (\n"
                + "    version    INTEGER PRIMARY KEY,\n"
                + "    name       TEXT NOT NULL,\n"
                + "    applied_at " + (dialect == Dialect.SQLITE
                        ? "TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))"
                        : "TIMESTAMPTZ NOT NULL DEFAULT now()") + "\n"
                + ")";
    }

    /**
     * Brings the database to {@link #latest()}, one migration per transaction, and returns the
     * version it found. The connection is left in auto-commit mode. TooNewException (M4) or the
     * SQLException of the failed migration, whose transaction was rolled back (M2).
     */
    static int migrate(Connection connection, Dialect dialect) throws SQLException {
        int found = -1;
        while (true) {
            begin(connection, dialect);  // M3: the lock comes before the version is read
            try (Statement statement = connection.createStatement()) {
                statement.execute(versionTableDdl(dialect));
                int version;
                try (ResultSet row = statement.executeQuery("SELECT coalesce(max(version), 0) FROM " + VERSION_TABLE)) {
                    row.next();
                    version = row.getInt(1);
                }
                if (found < 0) found = version;
                if (version > latest()) throw new TooNewException(version);  // M4
                if (version == latest()) {
                    commit(connection, dialect);
                    return found;
                }
                int next = version + 1;
                for (String sql : statements(dialect, next)) statement.execute(sql);
                try (PreparedStatement record = connection.prepareStatement(
                        "INSERT INTO " + VERSION_TABLE + " (version, name) VALUES (?, ?)")) {
                    record.setInt(1, next);
                    record.setString(2, NAMES.get(next - 1));
                    record.executeUpdate();
                }
                commit(connection, dialect);  // M2: the migration and its record, or neither
                Log.info("database schema migrated to version " + next + " (" + NAMES.get(next - 1) + ")");
            } catch (SQLException | RuntimeException e) {
                rollback(connection, dialect);
                throw e;
            }
        }
    }

    /** The whole schema as one script, for a privileged user to run on an empty database. */
    static String script(Dialect dialect) {
        StringBuilder out = new StringBuilder();
        out.append("-- outpost-consumer schema version ").append(latest()).append(" (").append(dialect.label())
                .append("), for an empty database: run it whole, in one transaction.\n\n");
        out.append(versionTableDdl(dialect)).append(";\n\n");
        for (int version = 1; version <= latest(); version++) {
            out.append("-- ").append(NAMES.get(version - 1)).append('\n');
            for (String sql : statements(dialect, version)) out.append(sql).append(";\n\n");
            out.append("INSERT INTO ").append(VERSION_TABLE).append(" (version, name) VALUES (").append(version)
                    .append(", '").append(NAMES.get(version - 1)).append("');\n\n");
        }
        return out.toString();
    }

    private static void begin(Connection connection, Dialect dialect) throws SQLException {
        if (dialect == Dialect.SQLITE) {
            connection.setAutoCommit(true);
            try (Statement statement = connection.createStatement()) {
                statement.execute("BEGIN IMMEDIATE");  // M3: the write lock, before the version is read
            }
        } else {
            connection.setAutoCommit(false);
            try (Statement statement = connection.createStatement()) {
                // M3: held until COMMIT or ROLLBACK; other consumers' migrations wait here.
                statement.execute("SELECT pg_advisory_xact_lock(" + ADVISORY_LOCK_KEY + ")");
            }
        }
    }

    private static void commit(Connection connection, Dialect dialect) throws SQLException {
        if (dialect == Dialect.SQLITE) {
            try (Statement statement = connection.createStatement()) {
                statement.execute("COMMIT");
            }
        } else {
            connection.commit();
            connection.setAutoCommit(true);
        }
    }

    private static void rollback(Connection connection, Dialect dialect) {
        try {
            if (dialect == Dialect.SQLITE) {
                try (Statement statement = connection.createStatement()) {
                    statement.execute("ROLLBACK");
                }
            } else {
                connection.rollback();
                connection.setAutoCommit(true);
            }
        } catch (SQLException ignored) {
            // the connection is broken; the caller drops it, and the server rolls back
        }
    }
}
