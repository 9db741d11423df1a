-- 002: the dedupe record and the alarm are keyed (gateway, eventId), no longer
-- eventId alone. A gateway makes its eventIds unique among its own events
-- only, and the bridge vouches for the gatewayId (the MQTT identity), not for
-- the eventId: keyed on the eventId alone, a gateway that sent another's
-- eventId first made the consumer drop the other's alarm as a repeat.
-- Existing records take the gateway of their alarm row, '' where there is
-- none (a record of another application sharing the table).
-- SQLite changes no primary key in place: both tables are copied into new
-- ones (a one-time rewrite of both, inside this migration's transaction).

CREATE TABLE processed_event_002 (
    consumer     TEXT NOT NULL,
    gateway_id   TEXT NOT NULL,
    event_id     TEXT NOT NULL,
    processed_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (consumer, gateway_id, event_id)
) WITHOUT ROWID;

INSERT INTO processed_event_002 (consumer, gateway_id, event_id, processed_at)
SELECT processed_event.consumer, coalesce(alarm.gateway_id, ''), processed_event.event_id, processed_event.processed_at
  FROM processed_event LEFT JOIN alarm ON alarm.event_id = processed_event.event_id;

DROP TABLE processed_event;

ALTER TABLE processed_event_002 RENAME TO processed_event;

CREATE TABLE alarm_002 (
    event_id    TEXT NOT NULL,
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
    applied_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
    PRIMARY KEY (gateway_id, event_id)
);

INSERT INTO alarm_002 SELECT * FROM alarm;

DROP TABLE alarm;

ALTER TABLE alarm_002 RENAME TO alarm;
