package org.outpost.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class EnvelopeReaderTest {
    private final EnvelopeReader reader = new EnvelopeReader(EnvelopeSchema.load());

    private Decoded read(ObjectNode node) {
        return reader.read(Samples.bytes(node), null);
    }

    private Decoded readText(String text) {
        return reader.read(Samples.bytes(text), null);
    }

    private static void assertInvalid(Decoded decoded, String mentions) {
        assertEquals(Decoded.Kind.INVALID, decoded.kind(), () -> "expected INVALID, reason " + decoded.reason());
        assertTrue(decoded.reason().contains(mentions), () -> "reason \"" + decoded.reason() + "\" lacks \"" + mentions + "\"");
    }

    @Test
    void aGatewayEnvelopeIsValidAndItsFieldsAreRead() {
        Decoded decoded = read(Samples.envelope("dev-1", 7, Samples.eventId(1)));
        assertEquals(Decoded.Kind.VALID, decoded.kind(), () -> String.valueOf(decoded.reason()));
        Envelope envelope = decoded.envelope();
        assertEquals(Samples.eventId(1), envelope.eventId());
        assertEquals(7, envelope.seq());
        assertEquals("critical", envelope.severity());
        assertEquals(97.5, envelope.value());
    }

    @Test
    void theSchemaInTheJarIsTheRepositorysSchemaFile() throws Exception {
        String repo = System.getProperty("outpost.repo");
        if (repo == null) return;  // run outside scripts/consumer.sh test
        EnvelopeSchema onDisk = EnvelopeSchema.load(Path.of(repo, "schema", "event.schema.json"));
        assertEquals(onDisk.knownVersion(), EnvelopeSchema.load().knownVersion());
        ObjectNode bad = Samples.envelope("dev-1", 1, Samples.eventId(1));
        bad.put("firmware", "1.2");
        assertEquals(onDisk.firstViolation(bad), EnvelopeSchema.load().firstViolation(bad));
    }

    @Test
    void schemaViolationsNameTheField() {
        Object[][] cases = {
            {"eventId", null, "eventId"},
            {"eventId", 42, "eventId"},
            {"eventId", "0190A1B2-C3D4-7E5F-8A6B-7C8D9E0F1A2B", "eventId"},
            {"eventId", "0190a1b2-c3d4-4e5f-8a6b-7c8d9e0f1a2b", "eventId"},
            {"eventType", "alarm raised", "eventType"},
            {"gatewayId", "gw/1", "gatewayId"},
            {"deviceId", "", "deviceId"},
            {"seq", "1", "seq"},
            {"seq", 0, "seq"},
            {"seq", 1.5, "seq"},
            {"aggregateType", "", "aggregateType"},
            {"aggregateId", "x".repeat(257), "aggregateId"},
            {"occurredAt", "yesterday", "occurredAt"},
            {"occurredAt", "2024-13-01T00:00:00Z", "occurredAt"},
            {"bootId", null, "bootId"},
            {"uptimeMs", -1, "uptimeMs"},
            {"firmware", "1.2", "firmware"},
        };
        for (Object[] c : cases) {
            ObjectNode node = Samples.envelope("dev-1", 1, Samples.eventId(1));
            if (c[1] == null) node.remove((String) c[0]);
            else node.set((String) c[0], Samples.MAPPER.valueToTree(c[1]));
            assertInvalid(read(node), (String) c[2]);
        }
        ObjectNode severity = Samples.envelope("dev-1", 1, Samples.eventId(1));
        ((ObjectNode) severity.get("payload")).put("severity", "urgent");
        assertInvalid(read(severity), "payload.severity");
        ObjectNode unit = Samples.envelope("dev-1", 1, Samples.eventId(1));
        ((ObjectNode) unit.get("payload")).put("unit", "u".repeat(33));
        assertInvalid(read(unit), "payload.unit");
    }

    @Test
    void integersAreIntegerLiteralsAndLengthsCountCharacters() {
        ObjectNode node = Samples.envelope("dev-1", 1, Samples.eventId(1));
        node.put("aggregateType", "\u00e9".repeat(64));
        node.put("occurredAt", "2024-06-01T12:00:00+02:00");
        assertEquals(Decoded.Kind.VALID, read(node).kind(), () -> read(node).reason());
        String valid = node.toString();
        // 1.0 and 1e3 are exact only up to 2^53 and Go or Rust refuse them as integers.
        assertInvalid(readText(valid.replace("\"seq\":1,", "\"seq\":1.0,")), "seq must be of type integer");
        assertInvalid(readText(valid.replace("\"uptimeMs\":12345", "\"uptimeMs\":1e3")), "uptimeMs must be of type integer");
    }

    @Test
    void anUnknownSchemaVersionIsNotInvalidButUnknown() {
        ObjectNode node = Samples.envelope("dev-1", 1, Samples.eventId(1));
        node.put("schemaVersion", 2);
        node.put("newField", "from a newer gateway");
        Decoded decoded = read(node);
        assertEquals(Decoded.Kind.UNKNOWN_VERSION, decoded.kind());
        assertTrue(decoded.reason().contains("schemaVersion 2"), decoded.reason());
        node.put("schemaVersion", "2");  // not an integer: never valid
        assertInvalid(read(node), "schemaVersion");
    }

    @Test
    void envelopeTextRulesRefuseWhatParsersDisagreeOn() {
        String valid = Samples.envelope("dev-1", 1, Samples.eventId(1)).toString();
        assertInvalid(readText("\uFEFF" + valid), "byte order mark");
        assertInvalid(readText(valid.replace("\"seq\":1", "\"seq\":1,\"seq\":2")), "twice");
        assertInvalid(readText(valid.replace("\"unit\":\"C\"", "\"unit\":\"C\n\"")), "not valid JSON");  // raw line feed
        assertInvalid(readText(valid.replace("\"uptimeMs\":12345", "\"uptimeMs\":9223372036854775808")), "64-bit");
        assertInvalid(readText(valid.replace("\"value\":97.5", "\"value\":1e400")), "too large");
        assertInvalid(readText(valid + " {}"), "JSON");
        assertInvalid(readText("[1,2]"), "object");
        assertInvalid(reader.read(new byte[] {'{', '"', (byte) 0xC3, '"', ':', '1', '}'}, null), "UTF-8");
        assertInvalid(readText(""), "empty");
        assertEquals(Decoded.Kind.VALID, readText(valid.replace("\"uptimeMs\":12345", "\"uptimeMs\":9223372036854775807")).kind());
    }

    @Test
    void nestingDeeperThanSixteenIsRefused() {
        String valid = Samples.envelope("dev-1", 1, Samples.eventId(1)).toString();
        // The envelope and its payload are 2 levels: 14 more reach the limit of 16, 15 pass it.
        String fourteen = "[".repeat(14) + "]".repeat(14);
        String fifteen = "[".repeat(15) + "]".repeat(15);
        assertEquals(Decoded.Kind.VALID,
                readText(valid.replace("\"unit\":\"C\"", "\"unit\":\"C\",\"extra\":" + fourteen)).kind());
        assertInvalid(readText(valid.replace("\"unit\":\"C\"", "\"unit\":\"C\",\"extra\":" + fifteen)), "deeper than 16");
    }

    @Test
    void keysThatNameAnotherEventIdAreRefused() {
        byte[] body = Samples.bytes(Samples.envelope("dev-1", 1, Samples.eventId(1)));
        assertEquals(Decoded.Kind.VALID, reader.read(body, Samples.eventId(1)).kind());
        assertEquals(Decoded.Kind.VALID, reader.read(body, "other " + Samples.eventId(1)).kind());
        assertInvalid(reader.read(body, Samples.eventId(2)), "KEYS");
    }

    @Test
    void randomBytesNeverThrow() {
        java.util.Random random = new java.util.Random(12345);
        for (int round = 0; round < 2000; round++) {
            byte[] bytes = new byte[random.nextInt(200)];
            random.nextBytes(bytes);
            assertNotNull(reader.read(bytes, null).kind());
        }
    }
}
