-- 002: the dedupe record and the alarm are keyed (gateway, eventId), no longer
-- eventId alone. A gateway makes its eventIds unique among its own events
-- only, and the bridge vouches for the gatewayId (the MQTT identity), not for
-- the eventId: keyed on the eventId alone, a gateway that sent another's
-- eventId first made the consumer drop the other's alarm as a repeat.
-- Existing records take the gateway of their alarm row, '' where there is
-- none (a record of another application sharing the table).
-- Cost: rewrites processed_event once and rebuilds both primary keys.

ALTER TABLE processed_event ADD COLUMN gateway_id TEXT;

UPDATE processed_event
   SET gateway_id = coalesce((SELECT alarm.gateway_id FROM alarm WHERE alarm.event_id = processed_event.event_id), '');

ALTER TABLE processed_event ALTER COLUMN gateway_id SET NOT NULL;

ALTER TABLE processed_event DROP CONSTRAINT processed_event_pkey;

ALTER TABLE processed_event ADD PRIMARY KEY (consumer, gateway_id, event_id);

ALTER TABLE alarm DROP CONSTRAINT alarm_pkey;

ALTER TABLE alarm ADD PRIMARY KEY (gateway_id, event_id);
