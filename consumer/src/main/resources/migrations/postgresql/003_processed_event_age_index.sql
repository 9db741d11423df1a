-- 003: an index on the dedupe records' age within a consumer, so the purge of
-- records older than dedupe_retention_hours reads only the rows it deletes
-- (oldest first) instead of scanning the table. Cost: one more index entry
-- written per applied event, in the transaction that writes the record.

CREATE INDEX processed_event_by_age ON processed_event (consumer, processed_at);
