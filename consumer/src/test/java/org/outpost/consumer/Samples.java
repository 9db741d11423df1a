package org.outpost.consumer;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;

/** Envelopes shaped exactly like the gateway's (src/store/envelope.cpp). */
final class Samples {
    static final ObjectMapper MAPPER = new ObjectMapper();

    private Samples() {}

    static String eventId(int n) {
        return String.format("0190a1b2-c3d4-7e5f-8a6b-%012x", n);
    }

    static ObjectNode envelope(String deviceId, long seq, String eventId) {
        ObjectNode node = MAPPER.createObjectNode();
        node.put("eventId", eventId);
        node.put("eventType", "ALARM_RAISED");
        node.put("schemaVersion", 1);
        node.put("gatewayId", "gw-1");
        node.put("deviceId", deviceId);
        node.put("seq", seq);
        node.put("aggregateType", "alarm");
        node.put("aggregateId", deviceId + "/overheat");
        node.put("occurredAt", "1970-01-01T00:00:12.345Z");
        node.put("bootId", "6f1c0d2e-1111-4a4a-9b9b-000000000001");
        node.put("uptimeMs", 12345);
        ObjectNode payload = node.putObject("payload");
        payload.put("alarmType", "overheat");
        payload.put("severity", "critical");
        payload.put("value", 97.5);
        payload.put("unit", "C");
        return node;
    }

    static byte[] bytes(ObjectNode node) {
        return node.toString().getBytes(StandardCharsets.UTF_8);
    }

    static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
