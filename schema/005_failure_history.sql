-- Outpost schema, version 5: when a row last failed, and what its earlier
-- failures were before an operator replayed it.
--
-- failed_at_ms: wall clock (Unix ms) of the row's last message-level
-- failure, a broker's refusal or a bridge's rejection; NULL: none recorded.
-- For operators only: no decision reads it (the publisher's timing is on
-- the boot clock).
--
-- failure_history: a JSON array, oldest first, of at most 4 entries, one
-- appended by each operator replay with what the replay reset:
--   {"attempts":3,"error":"PUBACK reason 0x87 (Not authorized)",
--    "failed_at_ms":1700000000000,"replayed_at_ms":1700000600000,
--    "reason":"ACL fixed","actor":"outpostctl by root (uid 0)"}
-- NULL: never replayed since version 5. Written only by replays, which are
-- rare operator actions, so the happy path writes nothing more.
--
-- Both ADD COLUMNs rewrite no row (SQLite edits the table's CREATE text):
-- an existing database upgrades in place in one small transaction.
ALTER TABLE outbox ADD COLUMN failed_at_ms INTEGER;
ALTER TABLE outbox ADD COLUMN failure_history TEXT;
