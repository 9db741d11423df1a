-- Outpost schema, version 4: receipts.
--
-- SENT means the MQTT broker acknowledged the publish; a receipt from the
-- bridge says RocketMQ stored the event (SEND_OK). A confirmed row is a SENT
-- row (state 1) with confirmed = 1, so everything that treats SENT as done
-- (retention, quota, replay) keeps working, and the state CHECK of
-- 001_initial.sql need not change (changing it would rewrite the table).
-- confirmed only ever goes from NULL to 1 by a receipt; an operator replay
-- (back to PENDING) clears it.
--
-- Both ADD COLUMNs rewrite no row (SQLite edits the table's CREATE text), so
-- an existing database upgrades in place in one small transaction. Every
-- existing row starts unconfirmed, so outbox_summary.confirmed = 0 is exact
-- (outbox_summary.h, S1/S2) without a scan.
ALTER TABLE outbox ADD COLUMN confirmed INTEGER;
ALTER TABLE outbox_summary ADD COLUMN confirmed INTEGER NOT NULL DEFAULT 0;
