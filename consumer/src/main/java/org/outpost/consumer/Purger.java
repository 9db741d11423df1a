package org.outpost.consumer;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Deletes this consumer's dedupe records (processed_event) older than dedupe_retention_hours, oldest
 * first, in batches of purge_batch_rows, each batch its own transaction on the purger's own
 * connection, from its own thread ("outpost-consumer-purge"). Consumption never waits for a
 * purge: at most for one short batch (SQLite has one writer; PostgreSQL deletes old keys the
 * consumer does not insert). Migration 003's index (consumer, processed_at) makes each batch read
 * only the rows it deletes. Why records may go at all: Ledger I5; how long they stay:
 * docs/CONSUMING.md, "How long dedupe records are kept".
 *
 * <p>Stops with {@link #close()}: no batch starts after it, the running one finishes, the
 * connection closes.
 */
final class Purger implements AutoCloseable {
    private final String url;
    private final Properties credentials;
    private final Dialect dialect;
    private final String consumer;
    private final long retentionHours;
    private final int batchRows;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "outpost-consumer-purge");
        thread.setDaemon(true);
        return thread;
    });
    private volatile boolean closing;
    private Connection connection;  // guarded by this; null until the first purge, and after an error

    Purger(String url, String user, String password, String consumer, long retentionHours, int batchRows) {
        this.url = url;
        this.credentials = Ledger.credentials(user, password);
        this.dialect = Dialect.ofUrl(url);
        this.consumer = consumer;
        this.retentionHours = retentionHours;
        this.batchRows = batchRows;
    }

    /** Purges now and then every intervalMs until {@link #close()}; errors are logged, retried next time. */
    void start(long intervalMs) {
        timer.scheduleWithFixedDelay(() -> {
            try {
                long deleted = purge();
                if (deleted > 0) {
                    Log.info("purged " + deleted + " dedupe record(s) older than " + retentionHours + " h");
                }
            } catch (SQLException | RuntimeException e) {
                Log.warn("dedupe record purge failed: " + e.getMessage() + "; next try in " + intervalMs + " ms");
            }
        }, 0, intervalMs, TimeUnit.MILLISECONDS);
    }

    /**
     * One purge: deletes every record of this consumer older than the horizon (by the database's
     * clock, which wrote processed_at), batch by batch, and returns how many. On SQLException the
     * failed batch is rolled back (those before it stay deleted) and the connection dropped.
     */
    synchronized long purge() throws SQLException {
        long deleted = 0;
        try {
            if (connection == null) {
                connection = Ledger.connect(url, credentials, dialect);
                connection.setAutoCommit(false);
            }
            String cutoff = dialect == Dialect.SQLITE
                    ? "strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-' || ? || ' hours')"
                    : "now() - make_interval(hours => ?)";
            try (PreparedStatement delete = connection.prepareStatement(
                    "DELETE FROM processed_event WHERE (consumer, gateway_id, event_id) IN ("
                            + "SELECT consumer, gateway_id, event_id FROM processed_event "
                            + "WHERE consumer = ? AND processed_at < " + cutoff + " ORDER BY processed_at LIMIT ?)")) {
                delete.setString(1, consumer);
                delete.setInt(2, (int) retentionHours);
                delete.setInt(3, batchRows);
                while (!closing) {
                    int batch = delete.executeUpdate();
                    connection.commit();  // each batch alone: the consumer's writes wait for one batch at most
                    deleted += batch;
                    if (batch < batchRows) break;
                }
            }
        } catch (SQLException | RuntimeException e) {
            drop();
            throw e;
        }
        return deleted;
    }

    private void drop() {
        if (connection == null) return;
        Ledger.discard(connection);
        connection = null;
    }

    @Override
    public void close() {
        closing = true;
        timer.shutdown();
        try {
            timer.awaitTermination(1, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            drop();
        }
    }
}
