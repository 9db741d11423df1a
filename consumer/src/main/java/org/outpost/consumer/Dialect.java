package org.outpost.consumer;

import java.util.List;

/**
 * The two databases the reference consumer runs on, and their tables. The DDL here is the one
 * docs/CONSUMING.md shows (ConsumingDocTest keeps them equal); `outpost-consumer --print-ddl
 * sqlite|postgresql` prints it.
 */
public enum Dialect {
    SQLITE("sqlite"),
    POSTGRESQL("postgresql");

    private final String label;

    Dialect(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** The dialect of a JDBC URL; IllegalArgumentException names the two that are supported. */
    public static Dialect ofUrl(String url) {
        if (url.startsWith("jdbc:sqlite:")) return SQLITE;
        if (url.startsWith("jdbc:postgresql:")) return POSTGRESQL;
        throw new IllegalArgumentException("database URL \"" + url
                + "\" is neither jdbc:sqlite:PATH nor jdbc:postgresql://HOST:PORT/DATABASE");
    }

    public static Dialect ofLabel(String label) {
        for (Dialect dialect : values()) {
            if (dialect.label.equals(label)) return dialect;
        }
        throw new IllegalArgumentException("unknown database \"" + label + "\" (sqlite or postgresql)");
    }

    /** CREATE statements, each idempotent (IF NOT EXISTS), in dependency order. */
    public List<String> ddl() {
        String text = "TEXT";
        String integer = this == SQLITE ? "INTEGER" : "BIGINT";
        String real = this == SQLITE ? "REAL" : "DOUBLE PRECISION";
        String blob = this == SQLITE ? "BLOB" : "BYTEA";
        String now = this == SQLITE ? "TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))"
                : "TIMESTAMPTZ NOT NULL DEFAULT now()";
        String id = this == SQLITE ? "INTEGER PRIMARY KEY" : "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY";
        return List.of(
                // The dedupe record: one row per (consumer, eventId), written in the same
                // transaction as the business effect it guards.
                "CREATE TABLE IF NOT EXISTS processed_event (\n"
                        + "    consumer     " + text + " NOT NULL,\n"
                        + "    event_id     " + text + " NOT NULL,\n"
                        + "    processed_at " + now + ",\n"
                        + "    PRIMARY KEY (consumer, event_id)\n"
                        // SQLite: the key is the table (one B-tree, not a table and an index).
                        + ")" + (this == SQLITE ? " WITHOUT ROWID" : ""),
                // The business effect: one row per alarm event.
                "CREATE TABLE IF NOT EXISTS alarm (\n"
                        + "    event_id    " + text + " PRIMARY KEY,\n"
                        + "    gateway_id  " + text + " NOT NULL,\n"
                        + "    device_id   " + text + " NOT NULL,\n"
                        + "    seq         " + integer + " NOT NULL,\n"
                        + "    event_type  " + text + " NOT NULL,\n"
                        + "    alarm_type  " + text + ",\n"
                        + "    severity    " + text + ",\n"
                        + "    value       " + real + ",\n"
                        + "    unit        " + text + ",\n"
                        + "    text        " + text + ",\n"
                        + "    occurred_at " + text + " NOT NULL,\n"
                        + "    boot_id     " + text + " NOT NULL,\n"
                        + "    uptime_ms   " + integer + " NOT NULL,\n"
                        + "    applied_at  " + now + "\n"
                        + ")",
                // The latest state of each device: moved only by an event with a higher seq.
                "CREATE TABLE IF NOT EXISTS device_state (\n"
                        + "    gateway_id      " + text + " NOT NULL,\n"
                        + "    device_id       " + text + " NOT NULL,\n"
                        + "    last_seq        " + integer + " NOT NULL,\n"
                        + "    last_event_id   " + text + " NOT NULL,\n"
                        + "    last_event_type " + text + " NOT NULL,\n"
                        + "    alarm_type      " + text + ",\n"
                        + "    severity        " + text + ",\n"
                        + "    value           " + real + ",\n"
                        + "    occurred_at     " + text + " NOT NULL,\n"
                        + "    updated_at      " + now + ",\n"
                        + "    PRIMARY KEY (gateway_id, device_id)\n"
                        + ")",
                // Per-device seq gaps and late arrivals, as detected (the event is applied anyway).
                "CREATE TABLE IF NOT EXISTS seq_anomaly (\n"
                        + "    id           " + id + ",\n"
                        + "    consumer     " + text + " NOT NULL,\n"
                        + "    gateway_id   " + text + " NOT NULL,\n"
                        + "    device_id    " + text + " NOT NULL,\n"
                        + "    kind         " + text + " NOT NULL CHECK (kind IN ('gap', 'late')),\n"
                        + "    expected_seq " + integer + " NOT NULL,\n"
                        + "    seq          " + integer + " NOT NULL,\n"
                        + "    event_id     " + text + " NOT NULL,\n"
                        + "    detected_at  " + now + "\n"
                        + ")",
                // Messages set aside with the reason: never applied, acknowledged so they do
                // not block their queue; one row per stored message however often redelivered.
                "CREATE TABLE IF NOT EXISTS quarantine (\n"
                        + "    id             " + id + ",\n"
                        + "    consumer       " + text + " NOT NULL,\n"
                        + "    topic          " + text + " NOT NULL,\n"
                        + "    broker         " + text + " NOT NULL,\n"
                        + "    queue_id       " + integer + " NOT NULL,\n"
                        + "    queue_offset   " + integer + " NOT NULL,\n"
                        + "    message_keys   " + text + ",\n"
                        + "    reason         " + text + " NOT NULL,\n"
                        + "    body           " + blob + " NOT NULL,\n"
                        + "    quarantined_at " + now + ",\n"
                        + "    UNIQUE (consumer, topic, broker, queue_id, queue_offset)\n"
                        + ")");
    }
}
