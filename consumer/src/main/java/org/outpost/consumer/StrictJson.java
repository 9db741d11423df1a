package org.outpost.consumer;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * JSON as the envelope contract reads it, stricter than RFC 8259 leaves room for: the rules the
 * gateway and the bridge apply beyond what a JSON Schema can state (schema/event.schema.json's
 * description; "Envelope text rules" in docs/CONSUMING.md).
 *
 * <ul>
 *   <li>UTF-8, well formed, with no byte order mark;
 *   <li>one JSON value and nothing after it;
 *   <li>no object with the same key twice (parsers disagree on which one wins);
 *   <li>nesting at most {@link #MAX_DEPTH} objects and arrays deep ({} is 1);
 *   <li>every integer literal within a signed 64-bit integer, every other number finite as a
 *       double. (Whether a field takes 1.0 or 1e3 as an integer is the schema's "integer" type:
 *       {@link EnvelopeSchema} takes only integer literals, as the bridge does.)
 * </ul>
 *
 * <p>Control characters are the schema's business: its patterns refuse them field by field
 * (payload.text may hold tab and line feed).
 */
public final class StrictJson {
    /** The bridge's depth limit (its max_depth default): the envelope with a flat payload is 2. */
    public static final int MAX_DEPTH = 16;

    private static final ObjectMapper MAPPER =
            JsonMapper.builder(JsonFactory.builder()
                            .streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(MAX_DEPTH).build())
                            .build())
                    .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                    .disable(JsonReadFeature.ALLOW_UNESCAPED_CONTROL_CHARS)
                    .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                    .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
                    .build();

    private StrictJson() {}

    /** Parses {@code body}; throws with the rule it breaks. */
    public static JsonNode parse(byte[] body) throws EnvelopeException {
        if (body.length >= 3
                && (body[0] & 0xFF) == 0xEF
                && (body[1] & 0xFF) == 0xBB
                && (body[2] & 0xFF) == 0xBF) {
            throw new EnvelopeException("the body starts with a UTF-8 byte order mark");
        }
        try {
            StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(body));
        } catch (CharacterCodingException e) {
            throw new EnvelopeException("the body is not well-formed UTF-8");
        }
        JsonNode root;
        try (JsonParser parser = MAPPER.createParser(body)) {
            if (parser.nextToken() == null) throw new EnvelopeException("the body is empty");
            root = MAPPER.readTree(parser);
            if (parser.nextToken() != null && parser.currentToken() != JsonToken.NOT_AVAILABLE) {
                throw new EnvelopeException("the body holds more than one JSON value");
            }
        } catch (StreamConstraintsException e) {
            throw new EnvelopeException("the body nests objects and arrays deeper than " + MAX_DEPTH);
        } catch (JsonProcessingException e) {
            String message = firstLine(e.getOriginalMessage());
            if (message.startsWith("Duplicate field")) {
                throw new EnvelopeException("an object holds a key twice (" + message + ")");
            }
            throw new EnvelopeException("the body is not valid JSON: " + firstLine(e.getOriginalMessage()));
        } catch (IOException e) {
            throw new EnvelopeException("the body cannot be read: " + e.getMessage());
        }
        check(root, "");
        return root;
    }

    private static void check(JsonNode node, String path) throws EnvelopeException {
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> field : node.properties()) {
                check(field.getValue(), path.isEmpty() ? field.getKey() : path + "." + field.getKey());
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) check(node.get(i), path + "[" + i + "]");
        } else if (node.isBigInteger() && !node.canConvertToLong()) {
            throw new EnvelopeException(name(path) + " is an integer outside the signed 64-bit range");
        } else if (node.isFloatingPointNumber() && !Double.isFinite(node.doubleValue())) {
            throw new EnvelopeException(name(path) + " is a number too large for a double");
        }
    }

    private static String name(String path) {
        return path.isEmpty() ? "the document" : path;
    }

    private static String firstLine(String text) {
        if (text == null) return "unknown error";
        int end = text.indexOf('\n');
        return end < 0 ? text : text.substring(0, end);
    }
}
