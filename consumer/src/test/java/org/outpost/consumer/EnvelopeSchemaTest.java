package org.outpost.consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The schema interpreter on schemas written for the test: the keywords as JSON Schema means them. */
class EnvelopeSchemaTest {
    private static EnvelopeSchema schema(String json) throws Exception {
        Path file = Files.createTempFile("schema", ".json");
        Files.writeString(file, json);
        return EnvelopeSchema.load(file);
    }

    @Test
    void patternsUseEcmaEscapesAndAnchorAtTheVeryEnd() throws Exception {
        EnvelopeSchema schema = schema("{\"properties\":{\"schemaVersion\":{\"const\":1},"
                + "\"text\":{\"type\":\"string\",\"pattern\":\"^[^\\\\u0000-\\\\u0008\\\\u000b-\\\\u001f\\\\u007f-\\\\u009f]*$\"},"
                + "\"id\":{\"type\":\"string\",\"pattern\":\"^[a-z]+$\"}}}");
        assertNull(schema.firstViolation(Samples.MAPPER.readTree("{\"text\":\"two\\nlines\\tand a tab\"}")));
        String control = schema.firstViolation(Samples.MAPPER.readTree("{\"text\":\"bell\\u0007\"}"));
        assertTrue(control != null && control.startsWith("text must match"), control);
        assertTrue(schema.firstViolation(Samples.MAPPER.readTree("{\"text\":\"c1\\u0085\"}")) != null);
        // Java's "$" would also match before a final line break; ECMA's does not.
        assertTrue(schema.firstViolation(Samples.MAPPER.readTree("{\"id\":\"abc\\n\"}")) != null);
    }

    @Test
    void minimumAndMaximumCompareExactly() throws Exception {
        EnvelopeSchema schema = schema("{\"properties\":{\"schemaVersion\":{\"const\":1},"
                + "\"n\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":9223372036854775807}}}");
        assertNull(schema.firstViolation(Samples.MAPPER.readTree("{\"n\":9223372036854775807}")));
        assertEquals("n must be >= 1", schema.firstViolation(Samples.MAPPER.readTree("{\"n\":0}")));
    }

    @Test
    void aSchemaWithAKeywordThisCodeDoesNotImplementIsRefusedAtLoad() {
        IllegalStateException refused = assertThrows(IllegalStateException.class, () -> schema(
                "{\"properties\":{\"schemaVersion\":{\"const\":1},\"n\":{\"type\":\"integer\",\"multipleOf\":2}}}"));
        assertTrue(refused.getMessage().contains("multipleOf"), refused.getMessage());
    }
}
