package org.outpost.consumer;

import com.fasterxml.jackson.databind.JsonNode;

/** Turns a message body (and its KEYS) into a {@link Decoded}: text rules, version, schema. */
public final class EnvelopeReader {
    private final EnvelopeSchema schema;

    public EnvelopeReader(EnvelopeSchema schema) {
        this.schema = schema;
    }

    /**
     * @param body the message body
     * @param keys the message's KEYS property (space separated), or null; the bridge sets it to
     *     the eventId, and a message whose KEYS name another id is refused rather than deduplicated
     *     under the wrong key
     */
    public Decoded read(byte[] body, String keys) {
        JsonNode document;
        try {
            document = StrictJson.parse(body);
        } catch (EnvelopeException e) {
            return Decoded.invalid(e.getMessage());
        }
        if (!document.isObject()) return Decoded.invalid("the body is not a JSON object");
        JsonNode version = document.get("schemaVersion");
        if (version != null && EnvelopeSchema.hasType(version, "integer")
                && version.longValue() != schema.knownVersion()) {
            // A newer gateway: not wrong, only not understood yet by this consumer.
            return Decoded.unknownVersion("schemaVersion " + version.asText() + " is not understood by this consumer (it knows "
                    + schema.knownVersion() + ")");
        }
        String violation = schema.firstViolation(document);
        if (violation != null) return Decoded.invalid("schema: " + violation);
        Envelope envelope = Envelope.of(document);
        if (keys != null && !keys.isBlank()) {
            boolean named = false;
            for (String key : keys.trim().split(" +")) named |= key.equals(envelope.eventId());
            if (!named) {
                return Decoded.invalid("the message KEYS \"" + keys + "\" do not name its eventId " + envelope.eventId());
            }
        }
        return Decoded.valid(envelope);
    }
}
