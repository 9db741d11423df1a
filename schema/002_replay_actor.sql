-- Outpost schema, version 2: who or what asked for a replay.
--
-- An operator replay already records its count, time and reason; the actor
-- ("outpostctl by alice (uid 1000)", "maintenance screen") says who to ask
-- about it. ADD COLUMN rewrites no row (SQLite only edits the table's CREATE
-- text), so an existing database upgrades in place in one small
-- transaction, and the happy path writes nothing more: the column stays
-- NULL until the first replay of a row.
ALTER TABLE outbox ADD COLUMN replay_actor TEXT;
