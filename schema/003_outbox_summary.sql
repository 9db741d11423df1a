-- Outpost schema, version 3: what the store knows about its outbox without
-- reading it, and how long earlier boots lasted.
--
-- Every figure an operator or the publisher asks for often (backlog, rows per
-- state, oldest pending, an event by id, each device's last seq at open)
-- used to be a scan of the outbox: on a store filled to its quota that is
-- ~100 ms on x86 and seconds on an SD card, once a second. The writer now
-- keeps these figures in memory and writes them here (src/store/
-- outbox_summary.cpp states the invariants):
--  - in every transaction that changes a row's state or deletes rows (those
--    transactions write outbox pages anyway; the summary is one more page);
--  - in an insert-only transaction once 256 rows went uncounted, or a minute
--    of boot clock passed: an amortised page per 256 alarms, not per alarm.
-- Rows with id > through_id are, by that rule, all PENDING: a reader adds
-- them with one range count on the rowid (at most ~256 rows).

CREATE TABLE outbox_summary (
    id                INTEGER PRIMARY KEY CHECK (id = 1),
    pending           INTEGER NOT NULL,  -- among rows with id <= through_id
    sent              INTEGER NOT NULL,
    dead              INTEGER NOT NULL,
    oldest_pending_id INTEGER NOT NULL,  -- lowest PENDING id <= through_id; 0: none
    through_id        INTEGER NOT NULL,  -- the counts (and device_seq) cover ids <= this
    boot_id           TEXT    NOT NULL,  -- kernel boot of the last write; '' before any
    uptime_ms         INTEGER NOT NULL   -- boot clock at the last write
);
INSERT INTO outbox_summary
SELECT 1,
       (SELECT count(*) FROM outbox WHERE state = 0),
       (SELECT count(*) FROM outbox WHERE state = 1),
       (SELECT count(*) FROM outbox WHERE state = 2),
       coalesce((SELECT min(id) FROM outbox WHERE state = 0), 0),
       coalesce((SELECT max(id) FROM outbox), 0),
       '', 0;

-- device_seq now covers every row up to outbox_summary.through_id (not only
-- purged ones), so open reads it plus the uncounted tail instead of a
-- GROUP BY over the whole outbox.
INSERT INTO device_seq (device_id, last_seq)
SELECT device_id, max(seq) FROM outbox WHERE true GROUP BY device_id
ON CONFLICT (device_id) DO UPDATE SET last_seq = max(last_seq, excluded.last_seq);

-- Boots this store saw end, oldest first, each with the last boot-clock
-- reading the store recorded in it (outbox_summary.uptime_ms when the next
-- boot first opened the store). The age of a row from an earlier boot is at
-- least the rest of its boot plus every later boot: no wall clock involved.
CREATE TABLE boot_log (
    seq            INTEGER PRIMARY KEY,
    boot_id        TEXT    NOT NULL,
    last_uptime_ms INTEGER NOT NULL
);

-- Event ids made from here on grow with the rowid (the generator is seeded
-- from the newest stored id at open), so a lookup bisects the rowid. Rows at
-- or below this id were made before and are searched by a bounded scan.
INSERT INTO meta (key, value)
SELECT 'event_ids_ordered_after', CAST(coalesce(max(id), 0) AS TEXT) FROM outbox;
