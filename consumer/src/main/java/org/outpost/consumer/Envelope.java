package org.outpost.consumer;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * One valid schemaVersion-1 envelope (schema/event.schema.json). Payload fields are null when the
 * event is not an alarm or leaves them out.
 */
public record Envelope(
        String eventId,
        String eventType,
        long schemaVersion,
        String gatewayId,
        String deviceId,
        long seq,
        String aggregateType,
        String aggregateId,
        String occurredAt,
        String bootId,
        long uptimeMs,
        String alarmType,
        String severity,
        Double value,
        String unit,
        String text) {

    /** Reads the fields of a document the schema already accepted. */
    static Envelope of(JsonNode document) {
        JsonNode payload = document.get("payload");
        return new Envelope(
                document.get("eventId").textValue(),
                document.get("eventType").textValue(),
                document.get("schemaVersion").longValue(),
                document.get("gatewayId").textValue(),
                document.get("deviceId").textValue(),
                document.get("seq").longValue(),
                document.get("aggregateType").textValue(),
                document.get("aggregateId").textValue(),
                document.get("occurredAt").textValue(),
                document.get("bootId").textValue(),
                document.get("uptimeMs").longValue(),
                text(payload, "alarmType"),
                text(payload, "severity"),
                payload.hasNonNull("value") ? payload.get("value").doubleValue() : null,
                text(payload, "unit"),
                text(payload, "text"));
    }

    private static String text(JsonNode payload, String name) {
        JsonNode node = payload.get(name);
        return node != null && node.isTextual() ? node.textValue() : null;
    }
}
