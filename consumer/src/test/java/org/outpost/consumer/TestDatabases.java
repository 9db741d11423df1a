package org.outpost.consumer;

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

/**
 * Empty databases for the tests: a SQLite file always, and PostgreSQL when OUTPOST_POSTGRES_ENV
 * names the env file of `scripts/postgres.sh start DIR` (a schema of its own per database, so runs
 * do not see each other's rows).
 */
final class TestDatabases {
    record Db(String url, String user) {
        Dialect dialect() {
            return Dialect.ofUrl(url);
        }

        Connection connect() throws SQLException {
            return DriverManager.getConnection(url, user, null);
        }

        long count(String sql) throws SQLException {
            try (Connection c = connect(); Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
                r.next();
                return r.getLong(1);
            }
        }

        void execute(String... sqls) throws SQLException {
            try (Connection c = connect(); Statement s = c.createStatement()) {
                for (String sql : sqls) s.execute(sql);
            }
        }

        @Override
        public String toString() {
            return dialect().label();
        }
    }

    private TestDatabases() {}

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
}
