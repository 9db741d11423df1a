-- 001: the consumer's first tables. IF NOT EXISTS on purpose: a database
-- created before the schema had a version (no outpost_consumer_schema table)
-- already holds them and adopts version 1 unchanged.

CREATE TABLE IF NOT EXISTS processed_event (
    consumer     TEXT NOT NULL,
    event_id     TEXT NOT NULL,
    processed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer, event_id)
);

CREATE TABLE IF NOT EXISTS alarm (
    event_id    TEXT PRIMARY KEY,
    gateway_id  TEXT NOT NULL,
    device_id   TEXT NOT NULL,
    seq         BIGINT NOT NULL,
    event_type  TEXT NOT NULL,
    alarm_type  TEXT,
    severity    TEXT,
    value       DOUBLE PRECISION,
    unit        TEXT,
    text        TEXT,
    occurred_at TEXT NOT NULL,
    boot_id     TEXT NOT NULL,
    uptime_ms   BIGINT NOT NULL,
    applied_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS device_state (
    gateway_id      TEXT NOT NULL,
    device_id       TEXT NOT NULL,
    last_seq        BIGINT NOT NULL,
    last_event_id   TEXT NOT NULL,
    last_event_type TEXT NOT NULL,
    alarm_type      TEXT,
    severity        TEXT,
    value           DOUBLE PRECISION,
    occurred_at     TEXT NOT NULL,
    updated_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (gateway_id, device_id)
);

CREATE TABLE IF NOT EXISTS seq_anomaly (
    id           BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    consumer     TEXT NOT NULL,
    gateway_id   TEXT NOT NULL,
    device_id    TEXT NOT NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('gap', 'late')),
    expected_seq BIGINT NOT NULL,
    seq          BIGINT NOT NULL,
    event_id     TEXT NOT NULL,
    detected_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS quarantine (
    id             BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    consumer       TEXT NOT NULL,
    topic          TEXT NOT NULL,
    broker         TEXT NOT NULL,
    queue_id       BIGINT NOT NULL,
    queue_offset   BIGINT NOT NULL,
    message_keys   TEXT,
    reason         TEXT NOT NULL,
    body           BYTEA NOT NULL,
    quarantined_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (consumer, topic, broker, queue_id, queue_offset)
);
