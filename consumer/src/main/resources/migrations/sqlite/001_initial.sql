-- 001: the consumer's first tables. IF NOT EXISTS on purpose: a database
-- created before the schema had a version (no outpost_consumer_schema table)
-- already holds them and adopts version 1 unchanged.

CREATE TABLE IF NOT EXISTS processed_event (
    consumer     TEXT NOT NULL,
    event_id     TEXT NOT NULL,
    processed_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (consumer, event_id)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS alarm (
    event_id    TEXT PRIMARY KEY,
    gateway_id  TEXT NOT NULL,
    device_id   TEXT NOT NULL,
    seq         INTEGER NOT NULL,
    event_type  TEXT NOT NULL,
    alarm_type  TEXT,
    severity    TEXT,
    value       REAL,
    unit        TEXT,
    text        TEXT,
    occurred_at TEXT NOT NULL,
    boot_id     TEXT NOT NULL,
    uptime_ms   INTEGER NOT NULL,
    applied_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE IF NOT EXISTS device_state (
    gateway_id      TEXT NOT NULL,
    device_id       TEXT NOT NULL,
    last_seq        INTEGER NOT NULL,
    last_event_id   TEXT NOT NULL,
    last_event_type TEXT NOT NULL,
    alarm_type      TEXT,
    severity        TEXT,
    value           REAL,
    occurred_at     TEXT NOT NULL,
    updated_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (gateway_id, device_id)
);

CREATE TABLE IF NOT EXISTS seq_anomaly (
    id           INTEGER PRIMARY KEY,
    consumer     TEXT NOT NULL,
    gateway_id   TEXT NOT NULL,
    device_id    TEXT NOT NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('gap', 'late')),
    expected_seq INTEGER NOT NULL,
    seq          INTEGER NOT NULL,
    event_id     TEXT NOT NULL,
    detected_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE IF NOT EXISTS quarantine (
    id             INTEGER PRIMARY KEY,
    consumer       TEXT NOT NULL,
    topic          TEXT NOT NULL,
    broker         TEXT NOT NULL,
    queue_id       INTEGER NOT NULL,
    queue_offset   INTEGER NOT NULL,
    message_keys   TEXT,
    reason         TEXT NOT NULL,
    body           BLOB NOT NULL,
    quarantined_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    UNIQUE (consumer, topic, broker, queue_id, queue_offset)
);
