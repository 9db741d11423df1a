-- Outpost schema, version 1.
-- Migrations are forward only: never edit a released file, add the next one.
--
-- Write cost is the design constraint: a flash page rewritten per alarm is
-- wear. The happy path (record one alarm) touches two B-trees only: the leaf
-- of alarm_record and the leaf of outbox. There is deliberately no index on
-- outbox.state, device_id or event_id; the publisher walks outbox by rowid
-- from a cursor it keeps in memory, and the per-device sequence is kept in
-- memory and rebuilt from max(seq) at open.
--
-- An alarm's envelope is not stored: it is rebuilt, deterministically, from
-- its alarm_record and outbox rows whenever it is published (the same bytes
-- every time, since every input is stored). Storing it would repeat ~650
-- bytes per alarm and split the outbox leaf every few rows: about a third
-- more WAL bytes per alarm under group commit (bench/store_bench).

-- The business row: what the firmware reported.
CREATE TABLE alarm_record (
    id             INTEGER PRIMARY KEY,        -- equals outbox.id of its event
    event_id       TEXT    NOT NULL,           -- UUIDv7, the outbox row's id
    device_id      TEXT    NOT NULL,
    alarm_type     TEXT    NOT NULL,
    event_type     TEXT    NOT NULL,           -- ALARM_RAISED / ALARM_CLEARED
    severity       TEXT    NOT NULL,
    value          REAL,
    unit           TEXT,
    text           TEXT,
    occurred_at_ms INTEGER NOT NULL,           -- wall clock, may be unsynchronised
    boot_id        TEXT    NOT NULL,
    uptime_ms      INTEGER NOT NULL            -- CLOCK_BOOTTIME at recording
);

-- The event that announces a business row. One row per event, in commit
-- order (rowid). state: 0 PENDING, 1 SENT, 2 DEAD.
CREATE TABLE outbox (
    id              INTEGER PRIMARY KEY,
    event_id        TEXT    NOT NULL,          -- UUIDv7, never changes
    idempotency_key TEXT,                      -- caller's key, NULL if none
    device_id       TEXT    NOT NULL,
    seq             INTEGER NOT NULL,          -- per device, from 1
    event_type      TEXT    NOT NULL,
    topic_suffix    TEXT    NOT NULL,          -- e.g. alarm/<deviceId>
    envelope        TEXT,                      -- JSON for application events; NULL for
                                               -- alarms (rebuilt from alarm_record, see below)
    state           INTEGER NOT NULL DEFAULT 0 CHECK (state IN (0, 1, 2)),
    attempts        INTEGER NOT NULL DEFAULT 0,-- message-level failures only
    last_error      TEXT,
    epoch           INTEGER,                   -- lease epoch of the last state change
    sent_boot_id    TEXT,                      -- boot and uptime when marked SENT,
    sent_uptime_ms  INTEGER,                   --   for the retention purge
    replay_count    INTEGER NOT NULL DEFAULT 0,
    replayed_at_ms  INTEGER,
    replay_reason   TEXT
);

-- Only rows that carry a key pay for this index.
CREATE UNIQUE INDEX outbox_idempotency_key ON outbox (idempotency_key)
    WHERE idempotency_key IS NOT NULL;

-- Highest seq ever assigned per device, written only when the purge deletes
-- outbox rows (so seq never restarts after the rows that held it are gone).
CREATE TABLE device_seq (
    device_id TEXT PRIMARY KEY,
    last_seq  INTEGER NOT NULL
) WITHOUT ROWID;

-- The publisher lease's fencing token. One row; epoch grows by one per
-- acquisition. Every publisher write checks it in the same statement.
CREATE TABLE lease (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    epoch       INTEGER NOT NULL,
    holder      TEXT,
    boot_id     TEXT,
    acquired_uptime_ms INTEGER
);
INSERT INTO lease (id, epoch) VALUES (1, 0);

-- Store-wide facts (gateway id the database belongs to, creation time).
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
